#include "child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <thread>

extern char** environ;

namespace quotient::k8s_integration {

ChildProcess::ChildProcess(std::vector<std::string> args, bool capture_stdout,
                           const std::string& stderr_log) {
  std::array<int, 2> out{-1, -1};
  if (capture_stdout && pipe2(out.data(), O_CLOEXEC) != 0) return;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (capture_stdout) posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  if (!stderr_log.empty()) {
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
  }
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (posix_spawn(&pid_, args[0].c_str(), &actions, nullptr, argv.data(), environ) != 0) pid_ = -1;
  posix_spawn_file_actions_destroy(&actions);
  if (capture_stdout) {
    close(out[1]);
    stdout_fd_ = out[0];
  }
}

ChildProcess::~ChildProcess() {
  Stop(SIGTERM);
  if (stdout_fd_ >= 0) close(stdout_fd_);
}

std::optional<std::string> ChildProcess::WaitForLine(const std::string& prefix,
                                                     std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (size_t start = 0, end; (end = output_.find('\n', start)) != std::string::npos;
         start = end + 1) {
      if (output_.compare(start, prefix.size(), prefix) == 0) {
        return output_.substr(start, end - start);
      }
    }
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0 || stdout_fd_ < 0) return std::nullopt;
    pollfd p{stdout_fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    std::array<char, 1024> buffer{};
    ssize_t n = read(stdout_fd_, buffer.data(), buffer.size());
    if (n <= 0) return std::nullopt;  // it closed its stdout (exited)
    output_.append(buffer.data(), static_cast<size_t>(n));
  }
}

void ChildProcess::Stop(int sig, std::chrono::seconds grace) {
  if (pid_ <= 0) return;
  kill(pid_, sig);
  auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid_ = -1;
}

CommandResult RunCommand(std::vector<std::string> args, const std::vector<std::string>& env) {
  CommandResult result;
  std::array<int, 2> out{-1, -1};
  if (pipe2(out.data(), O_CLOEXEC) != 0) return result;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDERR_FILENO);
  std::vector<std::string> environment(env);
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  std::vector<char*> argv;
  std::vector<char*> envp;
  for (std::string& a : args) argv.push_back(a.data());
  for (std::string& e : environment) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  pid_t pid = -1;
  int spawned = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (spawned != 0) {
    close(out[0]);
    result.output = "cannot start " + args[0];
    return result;
  }
  std::array<char, 4096> buffer{};
  for (ssize_t n; (n = read(out[0], buffer.data(), buffer.size())) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    result.output.append(buffer.data(), static_cast<size_t>(n));
  }
  close(out[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace quotient::k8s_integration
