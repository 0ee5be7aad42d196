// Leader election between two processes against the real API server: exactly one leads; when
// it stops (releasing the lease) the other takes over well within the lease duration; when it
// dies without releasing, the other takes over once the lease expires.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <array>
#include <chrono>

#include "cluster.h"

extern char** environ;

namespace quotient::k8s_integration {
namespace {

using Clock = std::chrono::steady_clock;

class Candidate {
 public:
  Candidate(const std::string& ns, const std::string& identity, int lease_s, int renew_s,
            int retry_s) {
    std::array<int, 2> out{};
    EXPECT_EQ(pipe2(out.data(), O_CLOEXEC), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    std::vector<std::string> args = {QUOTIENT_LEADER_PROBE,
                                     Harness().admin_kubeconfig(),
                                     ns,
                                     "quotient-scheduler",
                                     identity,
                                     std::to_string(lease_s),
                                     std::to_string(renew_s),
                                     std::to_string(retry_s)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    EXPECT_EQ(posix_spawn(&pid_, QUOTIENT_LEADER_PROBE, &actions, nullptr, argv.data(), environ),
              0);
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    fd_ = out[0];
  }
  ~Candidate() {
    Signal(SIGKILL);
    close(fd_);
  }
  // Waits up to `timeout` for a line starting with `prefix` on the candidate's stdout.
  bool WaitForLine(const std::string& prefix, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    for (;;) {
      if (auto at = text_.find(prefix); at != std::string::npos) return true;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return false;
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buffer[256];
      ssize_t n = read(fd_, buffer, sizeof buffer);
      if (n <= 0) return text_.find(prefix) != std::string::npos;
      text_.append(buffer, static_cast<size_t>(n));
    }
  }
  void Signal(int sig) {
    if (pid_ <= 0) return;
    kill(pid_, sig);
    int status = 0;
    waitpid(pid_, &status, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string text_;
};

TEST(LeaderElectionTest, HandoverBetweenTwoProcessesWithinTheLeaseDuration) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "leader");
  constexpr int kLease = 15, kRenew = 10, kRetry = 2;  // client-go's defaults
  Candidate a(ns, "replica-a", kLease, kRenew, kRetry);
  ASSERT_TRUE(a.WaitForLine("LEADING replica-a", std::chrono::seconds(20)));
  Candidate b(ns, "replica-b", kLease, kRenew, kRetry);
  // While a renews, b must not lead.
  EXPECT_FALSE(b.WaitForLine("LEADING", std::chrono::seconds(2 * kRetry + 1)));

  auto stopped = Clock::now();
  a.Signal(SIGTERM);  // clean stop: releases the lease
  ASSERT_TRUE(b.WaitForLine("LEADING replica-b", std::chrono::seconds(kLease)));
  auto handover = Clock::now() - stopped;
  EXPECT_LT(handover, std::chrono::seconds(kLease));
  std::printf("handover after release: %lld ms\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(handover).count()));

  auto lease = admin->Get(kubeclient::resources::Leases(), ns, "quotient-scheduler");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ(JsonField(lease->json, "spec.holderIdentity"), "replica-b");
  EXPECT_EQ(JsonField(lease->json, "spec.leaseTransitions"), "1");
}

TEST(LeaderElectionTest, ACrashedLeaderIsReplacedOnceTheLeaseExpires) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "crash");
  constexpr int kLease = 6, kRenew = 4, kRetry = 1;
  Candidate a(ns, "replica-a", kLease, kRenew, kRetry);
  ASSERT_TRUE(a.WaitForLine("LEADING replica-a", std::chrono::seconds(20)));
  Candidate b(ns, "replica-b", kLease, kRenew, kRetry);
  EXPECT_FALSE(b.WaitForLine("LEADING", std::chrono::seconds(2)));
  auto crashed = Clock::now();
  a.Signal(SIGKILL);  // no release
  ASSERT_TRUE(b.WaitForLine("LEADING replica-b", std::chrono::seconds(kLease + 3 * kRetry)));
  auto takeover = Clock::now() - crashed;
  // Not before the lease, as b last saw it renewed, ran out.
  EXPECT_GE(takeover, std::chrono::seconds(kLease - 2 * kRetry));
}

}  // namespace
}  // namespace quotient::k8s_integration

namespace quotient::k8s_integration {
namespace {

TEST(LeaderElectionTest, ALeaderThatCannotRenewStepsDown) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "stepdown");
  constexpr int kLease = 6, kRenew = 4, kRetry = 1;
  Candidate a(ns, "replica-a", kLease, kRenew, kRetry);
  ASSERT_TRUE(a.WaitForLine("LEADING replica-a", std::chrono::seconds(20)));
  // The API server goes away: renewals fail, and within the renew deadline (plus a retry
  // period to notice) the leader must stop leading — it can no longer prove it holds the lease.
  auto down = Clock::now();
  ASSERT_TRUE(Harness().Stop().ok());
  bool lost = a.WaitForLine("LOST", std::chrono::seconds(kRenew + 2 * kRetry + 1));
  auto stepped_down = Clock::now() - down;
  Status back = Harness().Start();
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_TRUE(lost);
  EXPECT_LT(stepped_down, std::chrono::seconds(kRenew + 2 * kRetry + 1));
}

}  // namespace
}  // namespace quotient::k8s_integration
