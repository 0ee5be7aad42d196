// Runs the probe as a child process with a chosen environment (LD_PRELOAD and friends), its
// stdout and stderr merged into one pipe the test reads line by line; its stdin is a pipe too,
// so a "hold" step keeps the child (and its allocations) alive until the test closes it.
#pragma once

#include <sys/types.h>

#include <cstdio>
#include <string>
#include <vector>

namespace quotient::interposer::testing {

class ChildProcess {
 public:
  ChildProcess(const std::string& program, const std::vector<std::string>& arguments,
               const std::vector<std::string>& environment);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Lines up to and including the first that starts with `prefix` (or end of output).
  std::vector<std::string> read_until(const std::string& prefix);
  // Closes stdin, reads the rest of the output and waits; returns every line not yet read.
  std::vector<std::string> finish();
  void kill_hard();  // SIGKILL and wait
  [[nodiscard]] int exit_status() const { return exit_status_; }

 private:
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  std::FILE* output_ = nullptr;
  int exit_status_ = -1;
};

// Runs to completion and returns the output lines.
std::vector<std::string> run_child(const std::string& program,
                                   const std::vector<std::string>& arguments,
                                   const std::vector<std::string>& environment);

}  // namespace quotient::interposer::testing
