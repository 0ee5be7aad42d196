// Child processes: one run of a command to completion (Quotient's `schedule`), and a long-lived
// line-oriented child (the oracle's `batch` mode: one JSON request per line in, one JSON answer
// per line out), read by a thread of its own so that neither side ever blocks on a full pipe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <sys/types.h>

namespace quotient::kaidiff {

struct ProcessResult {
  int exit_code = -1;  // -1: could not start or killed by a signal
  std::string out;
};

// Runs argv[0] (looked up on PATH when it has no slash) with stdin from /dev/null, stdout
// captured and stderr written to `stderr_file` (or discarded when empty).
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stderr_file = {});

class LineProcess {
 public:
  LineProcess() = default;
  ~LineProcess();
  LineProcess(const LineProcess&) = delete;
  LineProcess& operator=(const LineProcess&) = delete;

  // Starts the child; stderr goes to `stderr_file` (appended). False when it cannot start.
  bool Start(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file);
  bool WriteLine(const std::string& line);
  // The next line, or nullopt at end of output or after `timeout`.
  std::optional<std::string> ReadLine(std::chrono::seconds timeout);
  // Closes the child's stdin and waits for it (killing it after a grace period).
  void Stop();
  bool running() const { return pid_ > 0; }

 private:
  void ReadLoop(int fd);

  pid_t pid_ = -1;
  int in_fd_ = -1;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::string> lines_;
  bool eof_ = false;
};

}  // namespace quotient::kaidiff
