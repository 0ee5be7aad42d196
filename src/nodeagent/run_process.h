// Runs a program to completion under a deadline, its stdout and stderr captured together: what
// `quotient validate` needs to run `dcgmi diag` (dcgm_diag.h). Not a general process library:
// no stdin (it reads /dev/null), no environment changes, one process at a time.
//
// The child leads a process group of its own, so a deadline kills it and whatever it started
// (dcgmi runs the diagnostics in helper processes). Between fork and exec the child calls only
// async-signal-safe functions, so running this while other threads exist (the NVML deadline
// workers) is safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace quotient::nodeagent {

struct ProcessResult {
  bool started = false;            // false: `error` says why (no such file, fork failed, ...)
  bool timed_out = false;          // the deadline passed; the process group was killed
  std::optional<int> exit_code;    // when it exited by itself
  std::optional<int> term_signal;  // when a signal ended it (SIGKILL after a timeout)
  // stdout and stderr as they interleaved; only the last `max_output_bytes` are kept (a
  // diagnostic's verdict is at its end).
  std::string output;
  std::string error;
};

// Runs `argv[0]` (a path: see FindOnPath) with `argv`. Waits until the process exits and its
// output is closed, or until `deadline`, whichever comes first.
ProcessResult RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds deadline,
                         std::size_t max_output_bytes = 64 * 1024);

// The first executable file `name` in the colon-separated `path` (as $PATH), or nullopt. An
// empty entry means the current folder, as for the shell.
std::optional<std::string> FindOnPath(std::string_view name, std::string_view path);

// The last `count` non-empty lines of `text`, joined with " | " (for one-line details).
std::string LastLines(std::string_view text, std::size_t count);

}  // namespace quotient::nodeagent
