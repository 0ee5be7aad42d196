// leader_probe: one candidate in a leader election, for the two-process handover test.
//   leader_probe <kubeconfig> <namespace> <lease> <identity> <lease s> <renew s> <retry s>
// Prints "LEADING <identity>" when it becomes leader and "LOST" if it loses the lease; on
// SIGTERM it stops campaigning or leading, releases the lease and exits 0.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "kubeclient/client_factory.h"
#include "kubeclient/leader_election.h"

namespace {
std::atomic<bool> g_term{false};
void OnTerm(int) { g_term = true; }
}  // namespace

int main(int argc, char** argv) {
  using namespace quotient::kubeclient;
  if (argc != 8) {
    std::fprintf(stderr,
                 "usage: leader_probe kubeconfig namespace lease identity lease renew retry\n");
    return 2;
  }
  signal(SIGTERM, OnTerm);
  auto connection = LoadConnectionConfig(argv[1], "");
  if (!connection.ok()) {
    std::fprintf(stderr, "%s\n", connection.message().c_str());
    return 1;
  }
  auto client = MakeClient(*connection);
  LeaderElectionConfig config{argv[2],
                              argv[3],
                              argv[4],
                              std::chrono::seconds(std::stoi(argv[5])),
                              std::chrono::seconds(std::stoi(argv[6])),
                              std::chrono::seconds(std::stoi(argv[7]))};
  if (auto s = ValidateLeaderElectionConfig(config); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  LeaderElector elector(*client, config);
  std::stop_source stop;
  std::thread watcher([&] {
    while (!g_term) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    stop.request_stop();
  });
  bool clean = elector.Run(stop.get_token(), [&](std::stop_token leading) {
    std::printf("LEADING %s\n", argv[4]);
    std::fflush(stdout);
    while (!leading.stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  });
  if (!clean) {
    std::printf("LOST\n");
    std::fflush(stdout);
  }
  g_term = true;
  watcher.join();
  return 0;
}
