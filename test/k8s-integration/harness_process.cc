#include "harness_process.h"

#include <signal.h>

#include <curl/curl.h>
#include <fstream>
#include <sstream>

namespace quotient::k8s_integration {

HarnessProcess::HarnessProcess(std::string binary, std::string crds_dir, std::string data_dir,
                               std::vector<std::string> extra_args)
    : binary_(std::move(binary)),
      crds_dir_(std::move(crds_dir)),
      data_dir_(std::move(data_dir)),
      extra_args_(std::move(extra_args)) {}

HarnessProcess::~HarnessProcess() { (void)Stop(); }

Status HarnessProcess::Start(int timeout_s) {
  std::vector<std::string> args = {binary_, "--dir", data_dir_, "--crds", crds_dir_};
  args.insert(args.end(), extra_args_.begin(), extra_args_.end());
  process_ = std::make_unique<ChildProcess>(args, true, data_dir_ + "/harness.log");
  if (!process_->started()) return Status::Error("spawn " + binary_ + " failed");
  std::optional<std::string> ready =
      process_->WaitForLine("READY ", std::chrono::seconds(timeout_s));
  if (!ready) {
    (void)Stop();
    return Status::Error("harness did not print READY within " + std::to_string(timeout_s) +
                         " s; log:\n" + LogTail());
  }
  std::istringstream line(ready->substr(6));
  line >> admin_kubeconfig_ >> port_ >> control_port_;
  if (admin_kubeconfig_.empty() || port_ == 0 || control_port_ == 0) {
    return Status::Error("harness: malformed READY line: " + *ready);
  }
  return Status::Ok();
}

Status HarnessProcess::Stop() {
  if (process_) process_->Stop(SIGTERM);
  process_.reset();
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
