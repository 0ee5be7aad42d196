// Leader election between two processes against the real API server: exactly one leads; when
// it stops (releasing the lease) the other takes over well within the lease duration; when it
// dies without releasing, the other takes over once the lease expires.
#include <signal.h>

#include <gtest/gtest.h>

#include <chrono>

#include "child_process.h"
#include "cluster.h"

namespace quotient::k8s_integration {
namespace {

using Clock = std::chrono::steady_clock;

// One leader_probe process; its stdout says when it leads ("LEADING <id>") or lost ("LOST").
class Candidate {
 public:
  Candidate(const std::string& ns, const std::string& identity, int lease_s, int renew_s,
            int retry_s)
      : process_(
            {QUOTIENT_LEADER_PROBE, Harness().admin_kubeconfig(), ns, "quotient-scheduler",
             identity, std::to_string(lease_s), std::to_string(renew_s), std::to_string(retry_s)},
            true, "") {
    EXPECT_TRUE(process_.started());
  }
  ~Candidate() { Signal(SIGKILL); }
  bool WaitForLine(const std::string& prefix, std::chrono::milliseconds timeout) {
    return process_.WaitForLine(prefix, timeout).has_value();
  }
  void Signal(int sig) { process_.Stop(sig); }

 private:
  ChildProcess process_;
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
