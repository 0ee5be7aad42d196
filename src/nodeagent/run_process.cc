#include "nodeagent/run_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

namespace quotient::nodeagent {

namespace {

using Clock = std::chrono::steady_clock;

// Appends what can be read from `fd` now; false at end of file (or an error other than "no data
// yet"), when the caller closes it.
bool ReadAvailable(int fd, std::string& out, std::size_t keep) {
  std::array<char, 4096> buffer{};
  for (;;) {
    const ssize_t n = read(fd, buffer.data(), buffer.size());
    if (n > 0) {
      out.append(buffer.data(), static_cast<std::size_t>(n));
      // Trimmed in batches, so a chatty child does not make every read move the whole tail.
      if (out.size() > 2 * keep) out.erase(0, out.size() - keep);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

void Record(ProcessResult& result, int status) {
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.term_signal = WTERMSIG(status);
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv, std::chrono::milliseconds deadline,
                         std::size_t max_output_bytes) {
  ProcessResult result;
  if (argv.empty()) {
    result.error = "no program";
    return result;
  }
  // Everything the child touches is built before fork: after it, only async-signal-safe calls.
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int output[2];
  int exec_errno[2];  // close-on-exec: the child writes its errno there only if exec fails
  if (pipe2(output, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + strerror(errno);
    return result;
  }
  if (pipe2(exec_errno, O_CLOEXEC) != 0) {
    result.error = std::string("pipe: ") + strerror(errno);
    close(output[0]);
    close(output[1]);
    return result;
  }
  const pid_t pid = fork();
  if (pid < 0) {
    result.error = std::string("fork: ") + strerror(errno);
    for (int fd : {output[0], output[1], exec_errno[0], exec_errno[1]}) close(fd);
    return result;
  }
  if (pid == 0) {
    setpgid(0, 0);
    const int null = open("/dev/null", O_RDONLY);
    if (null >= 0) dup2(null, STDIN_FILENO);
    dup2(output[1], STDOUT_FILENO);
    dup2(output[1], STDERR_FILENO);
    execv(args[0], args.data());
    const int error = errno;
    ssize_t ignored = write(exec_errno[1], &error, sizeof error);
    (void)ignored;
    _exit(127);
  }
  setpgid(pid, pid);  // also here: the deadline may come before the child ran its own
  close(output[1]);
  close(exec_errno[1]);
  int child_errno = 0;
  ssize_t got = 0;
  while ((got = read(exec_errno[0], &child_errno, sizeof child_errno)) < 0 && errno == EINTR) {
  }
  close(exec_errno[0]);
  if (got == static_cast<ssize_t>(sizeof child_errno)) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(output[0]);
    result.error = argv[0] + ": " + strerror(child_errno);
    return result;
  }
  result.started = true;
  fcntl(output[0], F_SETFL, fcntl(output[0], F_GETFL) | O_NONBLOCK);

  const Clock::time_point end = Clock::now() + deadline;
  int fd = output[0];
  for (;;) {
    if (fd >= 0) {
      // Short waits: the child may exit while a helper it left behind keeps the pipe open.
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      pollfd p{fd, POLLIN, 0};
      const int ready = poll(&p, 1, static_cast<int>(std::clamp<int64_t>(left.count(), 0, 100)));
      if (ready > 0 && !ReadAvailable(fd, result.output, max_output_bytes)) {
        close(fd);
        fd = -1;
      }
    }
    int status = 0;
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      Record(result, status);
      break;
    }
    if (Clock::now() >= end) {
      kill(-pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      Record(result, status);
      result.timed_out = true;
      break;
    }
    if (fd < 0) usleep(10'000);  // output closed, the process not gone yet
  }
  if (fd >= 0) {
    ReadAvailable(fd, result.output, max_output_bytes);
    close(fd);
  }
  if (result.output.size() > max_output_bytes) {
    result.output.erase(0, result.output.size() - max_output_bytes);
  }
  return result;
}

std::optional<std::string> FindOnPath(std::string_view name, std::string_view path) {
  if (name.find('/') != std::string_view::npos) return std::string(name);
  std::size_t start = 0;
  for (;;) {
    const std::size_t colon = path.find(':', start);
    std::string dir(path.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + std::string(name);
    struct stat st {};
    if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    start = colon + 1;
  }
}

std::string LastLines(std::string_view text, std::size_t count) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (!line.empty()) lines.push_back(line);
    start = end + 1;
  }
  const std::size_t first = lines.size() > count ? lines.size() - count : 0;
  std::string joined;
  for (std::size_t i = first; i < lines.size(); ++i) {
    if (!joined.empty()) joined += " | ";
    joined += lines[i];
  }
  return joined;
}

}  // namespace quotient::nodeagent
