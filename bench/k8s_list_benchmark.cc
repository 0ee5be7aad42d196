// k8s_list_benchmark: time and memory to list and cache N pods from a real API server (the test
// harness: etcd + kube-apiserver), as the scheduler's informer does at startup.
//
//   k8s_list_benchmark [--pods 100000] [--page 500] [--keep DIR]
//
// Creates the pods (8 writer threads, unthrottled), then measures, each from a cold client:
//   1. a paged LIST of every pod into raw JSON objects (RawObject), and
//   2. an informer sync: paged LIST + decode into a compact pod summary + indexed cache
//      (by node and by namespace) — what the scheduler keeps.
// For each (in a forked process of its own): wall time, its CPU time (user+sys), the API server
// process's CPU time over the same interval, and its resident memory growth.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <simdjson.h>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness_process.h"
#include "kubeclient/client_factory.h"
#include "kubeclient/informer.h"

namespace {

using namespace quotient;
using kubeclient::resources::Pods;

// What a scheduler needs of a pod; decoded straight from the JSON, nothing else kept.
struct PodSummary {
  std::string node;
  std::string phase;
  std::string scheduler;
};

Result<PodSummary> DecodeSummary(const kubeclient::RawObject& raw) {
  namespace od = simdjson::ondemand;
  thread_local od::parser parser;
  simdjson::padded_string padded(raw.json);
  od::document doc;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS)
    return Result<PodSummary>::Error("not JSON");
  PodSummary s;
  std::string_view text;
  if (doc["spec"]["nodeName"].get_string().get(text) == simdjson::SUCCESS) s.node = text;
  if (doc["spec"]["schedulerName"].get_string().get(text) == simdjson::SUCCESS) s.scheduler = text;
  if (doc["status"]["phase"].get_string().get(text) == simdjson::SUCCESS) s.phase = text;
  return s;
}

double CpuSecondsSelf() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU seconds of another process, from /proc/<pid>/stat (utime + stime, in clock ticks).
double CpuSecondsOf(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto close = all.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(all.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

int64_t RssKiB() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

struct Sample {
  double wall_s, client_cpu_s, server_cpu_s;
  int64_t rss_growth_kib;
};

template <typename F>
Sample Measure(pid_t server, F&& run) {
  int64_t rss0 = RssKiB();
  double cpu0 = CpuSecondsSelf();
  double server0 = CpuSecondsOf(server);
  auto t0 = std::chrono::steady_clock::now();
  run();
  auto t1 = std::chrono::steady_clock::now();
  return {std::chrono::duration<double>(t1 - t0).count(), CpuSecondsSelf() - cpu0,
          CpuSecondsOf(server) - server0, RssKiB() - rss0};
}

void Print(const char* what, int pods, const Sample& s) {
  std::printf(
      "%-28s %7d pods  wall %7.2f s  client cpu %6.2f s (%4.1f%% of wall)  "
      "api-server cpu %6.2f s  client RSS +%lld MiB\n",
      what, pods, s.wall_s, s.client_cpu_s, 100.0 * s.client_cpu_s / s.wall_s, s.server_cpu_s,
      static_cast<long long>(s.rss_growth_kib / 1024));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Time and memory to list and cache pods from a real API server"};
  int pods = 100000;
  int page = 500;
  std::string harness_binary = QUOTIENT_K8S_HARNESS;
  app.add_option("--pods", pods, "pods to create and list");
  app.add_option("--page", page, "page size (limit) of the list");
  app.add_option("--harness", harness_binary, "the k8s-harness binary");
  CLI11_PARSE(app, argc, argv);

  std::string dir =
      std::filesystem::temp_directory_path() / ("quotient-bench-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  k8s_integration::HarnessProcess harness(harness_binary, QUOTIENT_CRDS_DIR, dir, {});
  if (Status s = harness.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  auto connection = kubeclient::LoadConnectionConfig(harness.admin_kubeconfig(), "");
  if (!connection.ok()) {
    std::fprintf(stderr, "%s\n", connection.message().c_str());
    return 1;
  }
  kubeclient::ClientConfig unthrottled;
  unthrottled.qps = 0;

  // Namespaces of 1,000 pods each, and a default ServiceAccount in each before pods arrive.
  auto admin = kubeclient::MakeClient(*connection, unthrottled);
  int namespaces = (pods + 999) / 1000;
  for (int n = 0; n < namespaces; ++n) {
    std::string ns = "bench-" + std::to_string(n);
    (void)admin->Create(
        kubeclient::resources::Namespaces(), "",
        R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})");
  }
  kubeclient::Resource accounts{"", "v1", "serviceaccounts", true};
  for (int n = 0; n < namespaces; ++n) {
    while (!admin->Get(accounts, "bench-" + std::to_string(n), "default").ok()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  auto created_start = std::chrono::steady_clock::now();
  std::atomic<int> next{0}, failed{0};
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&] {
      auto client = kubeclient::MakeClient(*connection, unthrottled);
      for (int i = next++; i < pods; i = next++) {
        std::string ns = "bench-" + std::to_string(i / 1000);
        std::string name = "pod-" + std::to_string(i);
        std::string pod =
            R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
            R"(","labels":{"app":"bench","shard":")" + std::to_string(i % 16) +
            R"("}},"spec":{"schedulerName":"quotient","containers":[{"name":"main","image":"busybox","resources":{"requests":{"cpu":"1","memory":"1Gi","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}]}})";
        if (!client->Create(Pods(), ns, pod).ok()) ++failed;
      }
    });
  }
  for (auto& w : writers) w.join();
  double create_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - created_start).count();
  std::printf("created %d pods in %.1f s (%.0f/s, %d failed)\n", pods, create_s, pods / create_s,
              failed.load());

  pid_t server = harness.pid();
  // Each measurement runs in its own forked process, so its memory growth starts from the same
  // heap (not from one the previous measurement left behind) and its CPU time is its own.
  auto in_child = [](const std::function<void()>& body) {
    std::fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
      body();
      std::fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
  };
  in_child([&] {
    auto client = kubeclient::MakeClient(*connection, unthrottled);
    size_t items = 0;
    Sample s = Measure(server, [&] {
      kubeclient::ListOptions options;
      options.limit = page;
      auto list = client->List(Pods(), "", options);
      items = list.ok() ? list->items.size() : 0;
    });
    Print("list (raw JSON kept)", static_cast<int>(items), s);
  });
  in_child([&] {
    auto client = kubeclient::MakeClient(*connection, unthrottled);
    kubeclient::ReflectorOptions options;
    options.resource = Pods();
    options.page_size = page;
    kubeclient::Informer<PodSummary> informer(*client, options, DecodeSummary);
    (void)informer.indexer().AddIndex("node", [](const kubeclient::Cached<PodSummary>& p) {
      return std::vector<std::string>{p.value.node};
    });
    (void)informer.indexer().AddIndex("namespace", [](const kubeclient::Cached<PodSummary>& p) {
      return std::vector<std::string>{p.namespace_name};
    });
    Sample s = Measure(server, [&] {
      informer.Start();
      informer.WaitForSync(std::chrono::minutes(30));
    });
    Print("informer sync (decoded)", static_cast<int>(informer.indexer().Size()), s);
    informer.Stop();
  });
  (void)harness.Stop();
  std::filesystem::remove_all(dir);
  return 0;
}
