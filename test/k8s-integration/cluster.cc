#include "cluster.h"

#include <curl/curl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

namespace quotient::k8s_integration {
namespace {

HarnessProcess* g_harness = nullptr;

class HarnessEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    std::string dir =
        std::filesystem::temp_directory_path() / ("quotient-it-" + std::to_string(getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // The watch cache off: a watch from a compacted resourceVersion then fails with 410 at
    // once, which the relist test relies on (with the cache, the window is time-based).
    harness_ = std::make_unique<HarnessProcess>(
        QUOTIENT_K8S_HARNESS, QUOTIENT_CRDS_DIR, dir,
        std::vector<std::string>{"--apiserver-arg=--watch-cache=false"});
    Status s = harness_->Start();
    ASSERT_TRUE(s.ok()) << s.message();
    g_harness = harness_.get();
  }
  void TearDown() override {
    if (harness_) (void)harness_->Stop();
    if (!::testing::UnitTest::GetInstance()->Failed() && harness_) {
      std::filesystem::remove_all(harness_->data_dir());
    }
  }

 private:
  std::unique_ptr<HarnessProcess> harness_;
};

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new HarnessEnvironment);  // gtest owns it

kubeclient::ConnectionConfig Load(const std::string& path) {
  Result<kubeclient::ConnectionConfig> c = kubeclient::LoadConnectionConfig(path, "");
  EXPECT_TRUE(c.ok()) << c.message();
  return c.ok() ? *c : kubeclient::ConnectionConfig{};
}

}  // namespace

HarnessProcess& Harness() { return *g_harness; }

kubeclient::ConnectionConfig AdminConnection() { return Load(Harness().admin_kubeconfig()); }

std::unique_ptr<kubeclient::Client> AdminClient(int64_t qps) {
  kubeclient::ClientConfig config;
  config.qps = qps;
  return kubeclient::MakeClient(AdminConnection(), config);
}

std::unique_ptr<kubeclient::Client> SchedulerClient() {
  return kubeclient::MakeClient(Load(Harness().scheduler_kubeconfig()));
}

bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (done()) return true;
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::string CreateNamespace(kubeclient::Client& client, const std::string& base) {
  static std::atomic<int> counter{0};
  std::string name = "it-" + base + "-" + std::to_string(counter++);
  nlohmann::json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
  auto created = client.Create(kubeclient::resources::Namespaces(), "", ns.dump());
  EXPECT_TRUE(created.ok()) << created.error().Describe();
  kubeclient::Resource accounts{"", "v1", "serviceaccounts", true};
  bool ready =
      WaitFor([&] { return client.Get(accounts, name, "default").ok(); }, std::chrono::seconds(60));
  EXPECT_TRUE(ready) << "no default ServiceAccount in " << name;
  return name;
}

std::string PodJson(const std::string& name, const std::string& labels_json) {
  nlohmann::json pod = {
      {"apiVersion", "v1"},
      {"kind", "Pod"},
      {"metadata", {{"name", name}, {"labels", nlohmann::json::parse(labels_json)}}},
      {"spec",
       {{"schedulerName", "quotient-test"},  // nobody else will bind it
        {"terminationGracePeriodSeconds", 0},
        {"containers",
         {{{"name", "main"},
           {"image", "busybox"},
           {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}}}}}};
  return pod.dump();
}

std::string FakeNodeJson(const std::string& name) {
  nlohmann::json node = {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata",
       {{"name", name},
        {"annotations", {{"kwok.x-k8s.io/node", "fake"}}},
        {"labels", {{"kubernetes.io/hostname", name}, {"nvidia.com/gpu.product", "H200"}}}}},
      {"status",
       {{"capacity",
         {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}}},
        {"allocatable",
         {{"cpu", "64"}, {"memory", "512Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}}}}}};
  return node.dump();
}

std::string JsonField(const std::string& json, const std::string& dotted_path) {
  nlohmann::json doc = nlohmann::json::parse(json, nullptr, false);
  std::stringstream path(dotted_path);
  std::string part;
  const nlohmann::json* at = &doc;
  while (std::getline(path, part, '.')) {
    if (!at->is_object() || !at->contains(part)) return "";
    at = &(*at)[part];
  }
  if (at->is_string()) return at->get<std::string>();
  return at->dump();
}

HttpAnswer HttpGet(const std::string& url) {
  HttpAnswer answer;
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return answer;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 10L);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* data, size_t size, size_t count, void* out) -> size_t {
        static_cast<std::string*>(out)->append(data, size * count);
        return size * count;
      });
  if (curl_easy_perform(curl) == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  }
  curl_easy_cleanup(curl);
  return answer;
}

}  // namespace quotient::k8s_integration
