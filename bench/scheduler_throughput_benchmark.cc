// scheduler_throughput_benchmark: pods bound per second by `quotient scheduler` on a real API
// server, next to what a plain client achieves issuing bindings on the same server in the same
// run — the ceiling any scheduler could reach there.
//
//   scheduler_throughput_benchmark [--nodes 500] [--pods 5000] [--workers 16]
//
//   1. the harness (etcd + kube-apiserver + controllers + node simulator) with N fake nodes
//      (64 CPUs, 512 GiB, 8 GPUs) and one queue;
//   2. plain client: P pods of another scheduler name, then P bindings from `workers` threads,
//      round robin over the nodes; rate = P / time of the bindings;
//   3. scheduler: P single-pod workloads (1 CPU, 1 GiB each) in the queue, then the scheduler
//      service starts in this process with the same client settings; rate = P / time from its
//      cache being synced to its last bind.
// Both phases run unthrottled (no client-side QPS limit) with the same number of concurrent binds.
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness_process.h"
#include "kubeclient/client_factory.h"
#include "service/scheduler_service.h"

namespace {

using namespace quotient;
using kubeclient::resources::Pods;
using Clock = std::chrono::steady_clock;

std::string Node(int i) {
  std::string name = "node-" + std::to_string(i);
  return R"({"apiVersion":"v1","kind":"Node","metadata":{"name":")" + name +
         R"(","annotations":{"kwok.x-k8s.io/node":"fake"},"labels":{"kubernetes.io/hostname":")" +
         name +
         R"("}},"status":{"capacity":{"cpu":"64","memory":"512Gi","pods":"110","nvidia.com/gpu":"8"},"allocatable":{"cpu":"64","memory":"512Gi","pods":"110","nvidia.com/gpu":"8"}}})";
}

std::string Pod(const std::string& name, const std::string& scheduler) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"(","labels":{"kai.scheduler/queue":"bench"}},"spec":{"schedulerName":")" + scheduler +
         R"(","terminationGracePeriodSeconds":0,"containers":[{"name":"main","image":"busybox","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}]}})";
}

// Runs `body(i)` for i in [0, count) on `threads` threads, each with its own client.
void Parallel(const kubeclient::ConnectionConfig& connection, int threads, int count,
              const std::function<void(kubeclient::Client&, int)>& body) {
  std::atomic<int> next{0};
  std::vector<std::thread> pool;
  kubeclient::ClientConfig unthrottled;
  unthrottled.qps = 0;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      auto client = kubeclient::MakeClient(connection, unthrottled);
      for (int i = next++; i < count; i = next++) body(*client, i);
    });
  }
  for (auto& t : pool) t.join();
}

void CreateNamespace(kubeclient::Client& client, const std::string& ns) {
  (void)client.Create(
      kubeclient::resources::Namespaces(), "",
      R"({"apiVersion":"v1","kind":"Namespace","metadata":{"name":")" + ns + R"("}})");
  kubeclient::Resource accounts{"", "v1", "serviceaccounts", true};
  while (!client.Get(accounts, ns, "default").ok())
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Pods bound per second by quotient scheduler vs a plain client"};
  int nodes = 500;
  int pods = 5000;
  int workers = 16;
  app.add_option("--nodes", nodes);
  app.add_option("--pods", pods);
  app.add_option("--workers", workers, "concurrent binds, in both phases");
  CLI11_PARSE(app, argc, argv);

  std::string dir =
      std::filesystem::temp_directory_path() / ("quotient-throughput-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  k8s_integration::HarnessProcess harness(QUOTIENT_K8S_HARNESS, QUOTIENT_CRDS_DIR, dir, {});
  if (Status s = harness.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  auto connection = kubeclient::LoadConnectionConfig(harness.admin_kubeconfig(), "");
  if (!connection.ok()) return 1;
  kubeclient::ClientConfig unthrottled;
  unthrottled.qps = 0;
  auto admin = kubeclient::MakeClient(*connection, unthrottled);

  Parallel(*connection, 8, nodes, [](kubeclient::Client& c, int i) {
    (void)c.Create(kubeclient::resources::Nodes(), "", Node(i));
  });
  (void)admin->Create(
      kubeclient::resources::Queues(), "",
      R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"bench"},"spec":{"resources":{"gpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},"cpu":{"quota":-1,"limit":-1,"overQuotaWeight":1},"memory":{"quota":-1,"limit":-1,"overQuotaWeight":1}}}})");
  CreateNamespace(*admin, "plain");
  CreateNamespace(*admin, "sched");
  std::printf("%d nodes, %d pods per phase, %d concurrent binds\n", nodes, pods, workers);

  // Phase 1: the plain client's rate.
  Parallel(*connection, 8, pods, [](kubeclient::Client& c, int i) {
    (void)c.Create(Pods(), "plain", Pod("p-" + std::to_string(i), "nobody"));
  });
  std::atomic<int> plain_failures{0};
  auto t0 = Clock::now();
  Parallel(*connection, workers, pods, [&](kubeclient::Client& c, int i) {
    if (!c.Bind("plain", "p-" + std::to_string(i), "", "node-" + std::to_string(i % nodes)).ok())
      ++plain_failures;
  });
  double plain_s = std::chrono::duration<double>(Clock::now() - t0).count();
  double plain_rate = pods / plain_s;
  std::printf("plain client:  %d bindings in %.2f s = %.0f pods/s (%d failed)\n", pods, plain_s,
              plain_rate, plain_failures.load());

  // Phase 2: the scheduler.
  Parallel(*connection, 8, pods, [](kubeclient::Client& c, int i) {
    (void)c.Create(Pods(), "sched", Pod("s-" + std::to_string(i), "quotient"));
  });
  auto scheduler_client = kubeclient::MakeClient(*connection, unthrottled);
  service::ServiceOptions options;
  options.scheduler_name = "quotient";
  options.bind_workers = workers;
  service::SchedulerService service(*scheduler_client, options);
  std::stop_source stop;
  std::thread loop([&] { service.Run(stop.get_token()); });
  while (!service.cache().WaitForSync(std::chrono::milliseconds(100))) {
  }
  auto synced = Clock::now();
  auto deadline = synced + std::chrono::minutes(10);
  while (service.Stats().binds + service.Stats().bind_failures < pods && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  double sched_s = std::chrono::duration<double>(Clock::now() - synced).count();
  service::ServiceStats stats = service.Stats();
  stop.request_stop();
  loop.join();
  double sched_rate = static_cast<double>(stats.binds) / sched_s;
  std::printf("scheduler:     %lld binds in %.2f s = %.0f pods/s (%lld failed, %lld cycles)\n",
              static_cast<long long>(stats.binds), sched_s, sched_rate,
              static_cast<long long>(stats.bind_failures), static_cast<long long>(stats.cycles));
  std::printf("ratio scheduler / plain client: %.0f%%\n", 100.0 * sched_rate / plain_rate);
  (void)harness.Stop();
  std::filesystem::remove_all(dir);
  return 0;
}
