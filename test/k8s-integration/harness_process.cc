#include "harness_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <curl/curl.h>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

extern char** environ;

namespace quotient::k8s_integration {

HarnessProcess::HarnessProcess(std::string binary, std::string crds_dir, std::string data_dir,
                               std::vector<std::string> extra_args)
    : binary_(std::move(binary)),
      crds_dir_(std::move(crds_dir)),
      data_dir_(std::move(data_dir)),
      extra_args_(std::move(extra_args)) {}

HarnessProcess::~HarnessProcess() { (void)Stop(); }

Status HarnessProcess::Start(int timeout_s) {
  std::array<int, 2> out{};
  if (pipe2(out.data(), O_CLOEXEC) != 0)
    return Status::Error(std::string("pipe: ") + strerror(errno));
  std::string log = data_dir_ + "/harness.log";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, log.c_str(),
                                   O_WRONLY | O_CREAT | O_APPEND, 0644);
  std::vector<std::string> args = {binary_, "--dir", data_dir_, "--crds", crds_dir_};
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int rc = posix_spawn(&pid_, binary_.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    pid_ = -1;
    return Status::Error("spawn " + binary_ + ": " + strerror(rc));
  }
  // Read stdout until the READY line.
  std::string text;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p{out[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready <= 0) continue;
    std::array<char, 1024> buffer{};
    ssize_t n = read(out[0], buffer.data(), buffer.size());
    if (n <= 0) break;  // the harness exited
    text.append(buffer.data(), static_cast<size_t>(n));
    auto at = text.find("READY ");
    if (at != std::string::npos && text.find('\n', at) != std::string::npos) {
      std::istringstream line(text.substr(at + 6));
      line >> admin_kubeconfig_ >> port_ >> control_port_;
      close(out[0]);  // the harness prints nothing else on stdout
      if (admin_kubeconfig_.empty() || port_ == 0 || control_port_ == 0) {
        return Status::Error("harness: malformed READY line: " + text.substr(at));
      }
      return Status::Ok();
    }
  }
  close(out[0]);
  (void)Stop();
  return Status::Error("harness did not print READY within " + std::to_string(timeout_s) +
                       " s; log:\n" + LogTail());
}

Status HarnessProcess::Stop() {
  if (pid_ <= 0) return Status::Ok();
  kill(pid_, SIGTERM);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (;;) {
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &status, 0);
      break;
    }
    usleep(20'000);
  }
  pid_ = -1;
  return Status::Ok();
}

Result<std::string> HarnessProcess::Compact() const {
  CURL* curl = curl_easy_init();
  std::string url = "http://127.0.0.1:" + std::to_string(control_port_) + "/compact";
  std::string body;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POST, 1L);
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t count, void* user) {
        static_cast<std::string*>(user)->append(data, size * count);
        return size * count;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
  CURLcode rc = curl_easy_perform(curl);
  long code = 0;  // NOLINT(runtime/int)
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK || code != 200) {
    return Result<std::string>::Error("compact: " + std::string(curl_easy_strerror(rc)) + " " +
                                      std::to_string(code) + " " + body);
  }
  return body;
}

std::string HarnessProcess::LogTail() const {
  std::ifstream in(data_dir_ + "/harness.log");
  std::stringstream all;
  all << in.rdbuf();
  std::string text = all.str();
  constexpr size_t kTail = 4000;
  return text.size() > kTail ? text.substr(text.size() - kTail) : text;
}

}  // namespace quotient::k8s_integration
