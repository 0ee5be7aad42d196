#include "kubeclient/leader_election.h"

#include <gtest/gtest.h>

#include "kubeclient/micro_time.h"
#include "kubeclient/scripted_transport_for_test.h"

namespace quotient::kubeclient {
namespace {

using testing::ScriptedTransport;

std::string Lease(const std::string& holder, int64_t duration, const std::string& rv,
                  int64_t transitions = 0) {
  return R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"sched","namespace":"q","resourceVersion":")" +
         rv + R"("},"spec":{"holderIdentity":")" + holder + R"(","leaseDurationSeconds":)" +
         std::to_string(duration) +
         R"(,"acquireTime":"2026-11-29T10:00:00.000000Z","renewTime":"2026-11-29T10:00:00.000000Z","leaseTransitions":)" +
         std::to_string(transitions) + "}}";
}
const char* kNotFound = R"({"kind":"Status","reason":"NotFound","code":404})";
const char* kConflict = R"({"kind":"Status","reason":"Conflict","code":409})";

struct Fixture {
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<Client> client;
  std::chrono::steady_clock::time_point steady{};
  std::unique_ptr<LeaderElector> elector;

  explicit Fixture(const std::string& identity) {
    auto t = std::make_unique<ScriptedTransport>();
    transport = t.get();
    client = std::make_unique<Client>(std::move(t), ClientOptions{});
    LeaderElectionConfig config{"q", "sched", identity};
    elector = std::make_unique<LeaderElector>(
        *client, config, [this] { return steady; },
        [] { return std::chrono::system_clock::time_point(std::chrono::seconds(1795946400)); });
  }
};

TEST(LeaderElectionTest, ConfigConstraintsAreChecked) {
  LeaderElectionConfig ok{"q", "sched", "me"};
  EXPECT_TRUE(ValidateLeaderElectionConfig(ok).ok());
  LeaderElectionConfig bad = ok;
  bad.renew_deadline = std::chrono::seconds(15);
  EXPECT_EQ(ValidateLeaderElectionConfig(bad).message(),
            "leader election: leaseDuration must be greater than renewDeadline");
  bad = ok;
  bad.retry_period = std::chrono::seconds(9);  // 1.2 x 9 = 10.8 > 10
  EXPECT_FALSE(ValidateLeaderElectionConfig(bad).ok());
  bad = ok;
  bad.identity = "";
  EXPECT_FALSE(ValidateLeaderElectionConfig(bad).ok());
}

TEST(LeaderElectionTest, CreatesTheLeaseWhenAbsent) {
  Fixture f("me");
  f.transport->Answer(404, kNotFound);
  f.transport->Answer(201, Lease("me", 15, "1"));
  ApiResult<bool> r = f.elector->TryAcquireOrRenew();
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(*r);
  EXPECT_TRUE(f.elector->IsLeader());
  EXPECT_EQ(f.transport->requests[1].method, "POST");
  EXPECT_NE(f.transport->requests[1].body.find(R"("holderIdentity":"me")"), std::string::npos);
  EXPECT_NE(f.transport->requests[1].body.find(R"("renewTime":"2026-11-29T10:00:00.000000Z")"),
            std::string::npos);
}

TEST(LeaderElectionTest, AnotherHoldersLeaseExpiresByOurClockNotTheirs) {
  Fixture f("me");
  // First look: held by "other" (15 s). We start our own clock from this observation.
  f.transport->Answer(200, Lease("other", 15, "5", 2));
  EXPECT_FALSE(*f.elector->TryAcquireOrRenew());
  f.steady += std::chrono::seconds(14);
  f.transport->Answer(200, Lease("other", 15, "5", 2));  // unchanged record
  EXPECT_FALSE(*f.elector->TryAcquireOrRenew());
  EXPECT_EQ(f.transport->requests.size(), 2u);  // no write attempted
  f.steady += std::chrono::seconds(1);          // 15 s since the record last changed: expired
  f.transport->Answer(200, Lease("other", 15, "5", 2));
  f.transport->Answer(200, Lease("me", 15, "6", 3));
  EXPECT_TRUE(*f.elector->TryAcquireOrRenew());
  const HttpRequest& put = f.transport->requests[3];
  EXPECT_EQ(put.method, "PUT");
  EXPECT_NE(put.body.find(R"("resourceVersion":"5")"), std::string::npos);  // CAS on the read
  EXPECT_NE(put.body.find(R"("leaseTransitions":3)"), std::string::npos);
}

TEST(LeaderElectionTest, ARenewedLeaseRestartsTheExpiryClock) {
  Fixture f("me");
  f.transport->Answer(200, Lease("other", 15, "5"));
  EXPECT_FALSE(*f.elector->TryAcquireOrRenew());
  f.steady += std::chrono::seconds(10);
  f.transport->Answer(200, Lease("other", 15, "7"));  // the holder renewed
  EXPECT_FALSE(*f.elector->TryAcquireOrRenew());
  f.steady += std::chrono::seconds(10);  // 20 s after the first look, 10 s after the renewal
  f.transport->Answer(200, Lease("other", 15, "7"));
  EXPECT_FALSE(*f.elector->TryAcquireOrRenew());
}

TEST(LeaderElectionTest, AReleasedLeaseIsTakenAtOnceAndAConflictLosesTheRace) {
  Fixture f("me");
  f.transport->Answer(200, Lease("", 1, "9"));
  f.transport->Answer(409, kConflict);
  ApiResult<bool> r = f.elector->TryAcquireOrRenew();
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(*r);
  EXPECT_FALSE(f.elector->IsLeader());
}

TEST(LeaderElectionTest, ReleaseWritesAnEmptyHolderWithAOneSecondLease) {
  Fixture f("me");
  f.transport->Answer(404, kNotFound);
  f.transport->Answer(201, Lease("me", 15, "1"));
  ASSERT_TRUE(*f.elector->TryAcquireOrRenew());
  f.transport->Answer(200, Lease("", 1, "2"));
  ASSERT_TRUE(f.elector->Release().ok());
  const HttpRequest& put = f.transport->requests[2];
  EXPECT_EQ(put.method, "PUT");
  EXPECT_NE(put.body.find(R"("holderIdentity":"")"), std::string::npos);
  EXPECT_NE(put.body.find(R"("leaseDurationSeconds":1)"), std::string::npos);
  EXPECT_FALSE(f.elector->IsLeader());
}

TEST(MicroTimeTest, SixFractionalDigits) {
  using namespace std::chrono;
  system_clock::time_point t = system_clock::time_point(seconds(1795946400)) + microseconds(42);
  EXPECT_EQ(FormatMicroTime(t), "2026-11-29T10:00:00.000042Z");
  EXPECT_EQ(FormatMicroTime(system_clock::time_point(seconds(0))), "1970-01-01T00:00:00.000000Z");
}

}  // namespace
}  // namespace quotient::kubeclient
