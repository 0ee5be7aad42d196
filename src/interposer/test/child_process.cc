#include "child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>

namespace quotient::interposer::testing {

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& arguments,
                           const std::vector<std::string>& environment) {
  int to_child[2];
  int from_child[2];
  // Close-on-exec: a later child must not inherit this one's stdin, or closing it never ends it.
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& variable : environment) envp.push_back(const_cast<char*>(variable.c_str()));
  envp.push_back(nullptr);
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    dup2(from_child[1], STDERR_FILENO);
    close(to_child[0]);
    close(to_child[1]);
    close(from_child[0]);
    close(from_child[1]);
    execve(program.c_str(), argv.data(), envp.data());
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);
  stdin_fd_ = to_child[1];
  output_ = fdopen(from_child[0], "r");
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && exit_status_ == -1) kill_hard();
  if (output_ != nullptr) std::fclose(output_);
  if (stdin_fd_ >= 0) close(stdin_fd_);
}

std::vector<std::string> ChildProcess::read_until(const std::string& prefix) {
  std::vector<std::string> lines;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, output_) != nullptr) {
    std::string line(buffer);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    lines.push_back(line);
    if (!prefix.empty() && line.rfind(prefix, 0) == 0) break;
  }
  return lines;
}

std::vector<std::string> ChildProcess::finish() {
  if (stdin_fd_ >= 0) {
    close(stdin_fd_);
    stdin_fd_ = -1;
  }
  auto lines = read_until("");
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_status_ = status;
  return lines;
}

void ChildProcess::kill_hard() {
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_status_ = status;
}

std::vector<std::string> run_child(const std::string& program,
                                   const std::vector<std::string>& arguments,
                                   const std::vector<std::string>& environment) {
  ChildProcess child(program, arguments, environment);
  return child.finish();
}

}  // namespace quotient::interposer::testing
