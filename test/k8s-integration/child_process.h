// A child process for the integration tests (the harness, the scheduler binary, leader-election
// probes): started with posix_spawn, its stdout optionally captured through a pipe so a test can
// wait for a line, its stderr appended to a log file, stopped with a signal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace quotient::k8s_integration {

class ChildProcess {
 public:
  // Runs args[0] with `args`. `capture_stdout`: read it with WaitForLine; otherwise inherited.
  // `stderr_log`: appended to that file ("" = inherited). started() says whether it ran.
  ChildProcess(std::vector<std::string> args, bool capture_stdout, const std::string& stderr_log);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // The first complete stdout line starting with `prefix`, waiting up to `timeout`; nullopt on
  // timeout or when the process closed its stdout first.
  std::optional<std::string> WaitForLine(const std::string& prefix,
                                         std::chrono::milliseconds timeout);
  // Sends `sig` and waits for the exit; SIGKILL if it has not exited after `grace`.
  void Stop(int sig, std::chrono::seconds grace = std::chrono::seconds(30));

 private:
  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::string output_;
};

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `args` (args[0] a path) to completion with `env` ("NAME=value") put before this process's
// environment, so its entries win.
CommandResult RunCommand(std::vector<std::string> args, const std::vector<std::string>& env = {});

}  // namespace quotient::k8s_integration
