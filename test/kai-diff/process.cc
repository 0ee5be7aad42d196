#include "process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

extern char** environ;

namespace quotient::kaidiff {
namespace {

std::vector<char*> Argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const std::string& a : argv) out.push_back(const_cast<char*>(a.c_str()));
  out.push_back(nullptr);
  return out;
}

int ExitCode(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : -1; }

// posix_spawnp with the given descriptors as the child's stdin, stdout and stderr.
pid_t Spawn(const std::vector<std::string>& argv, int in, int out, const std::string& err_file,
            bool append, const std::vector<int>& close_in_child) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  const int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
  posix_spawn_file_actions_addopen(&actions, 2, err_file.empty() ? "/dev/null" : err_file.c_str(),
                                   flags, 0644);
  for (int fd : close_in_child) posix_spawn_file_actions_addclose(&actions, fd);
  pid_t pid = -1;
  std::vector<char*> args = Argv(argv);
  if (posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::filesystem::path& stderr_file) {
  ProcessResult result;
  int out_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  const int null_in = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = Spawn(argv, null_in, out_pipe[1], stderr_file.string(), false, {out_pipe[0]});
  close(null_in);
  close(out_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    return result;
  }
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(out_pipe[0], buffer, sizeof buffer);
    if (n > 0) {
      result.out.append(buffer, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = ExitCode(status);
  return result;
}

LineProcess::~LineProcess() { Stop(); }

bool LineProcess::Start(const std::vector<std::string>& argv,
                        const std::filesystem::path& stderr_file) {
  int in_pipe[2], out_pipe[2];
  if (pipe2(in_pipe, O_CLOEXEC) != 0) return false;
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return false;
  }
  pid_ =
      Spawn(argv, in_pipe[0], out_pipe[1], stderr_file.string(), true, {in_pipe[1], out_pipe[0]});
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (pid_ < 0) {
    close(in_pipe[1]);
    close(out_pipe[0]);
    return false;
  }
  in_fd_ = in_pipe[1];
  eof_ = false;
  lines_.clear();
  reader_ = std::thread([this, fd = out_pipe[0]] { ReadLoop(fd); });
  return true;
}

void LineProcess::ReadLoop(int fd) {
  std::string partial;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    partial.append(buffer, static_cast<size_t>(n));
    size_t start = 0;
    std::vector<std::string> complete;
    for (size_t nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      complete.push_back(partial.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    if (!complete.empty()) {
      std::lock_guard<std::mutex> lock(mutex_);
      for (std::string& line : complete) lines_.push_back(std::move(line));
      ready_.notify_all();
    }
  }
  close(fd);
  std::lock_guard<std::mutex> lock(mutex_);
  eof_ = true;
  ready_.notify_all();
}

bool LineProcess::WriteLine(const std::string& line) {
  if (in_fd_ < 0) return false;
  const std::string text = line + "\n";
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(in_fd_, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::optional<std::string> LineProcess::ReadLine(std::chrono::seconds timeout) {
  std::unique_lock<std::mutex> lock(mutex_);
  ready_.wait_for(lock, timeout, [this] { return !lines_.empty() || eof_; });
  if (lines_.empty()) return std::nullopt;
  std::string line = std::move(lines_.front());
  lines_.pop_front();
  return line;
}

void LineProcess::Stop() {
  if (in_fd_ >= 0) {
    close(in_fd_);
    in_fd_ = -1;
  }
  if (pid_ > 0) {
    int status = 0;
    for (int i = 0; i < 50 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(100000);
    if (waitpid(pid_, &status, WNOHANG) == 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
}

}  // namespace quotient::kaidiff
