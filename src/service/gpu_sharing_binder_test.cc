// The GPU-sharing binder's rules that need no API server: names, portions, and when the
// collector deletes (the API side is tested end to end in gpu_sharing_e2e_test.cc).
#include "service/gpu_sharing_binder.h"

#include <gtest/gtest.h>

#include "kubeclient/scripted_transport_for_test.h"

namespace quotient::service {
namespace {

using kubeclient::testing::ScriptedTransport;
using std::chrono::seconds;

constexpr char kReservations[] = "quotient-resource-reservation";

core::PodObject Reservation(const std::string& name, const std::string& group) {
  core::PodObject pod;
  pod.meta.namespace_name = kReservations;
  pod.meta.name = name;
  pod.meta.labels = {{"app", "quotient-gpu-reservation"}, {"runai-gpu-group", group}};
  pod.node_name = "n1";
  pod.phase = core::PodPhase::kRunning;
  return pod;
}

core::PodObject Fractional(const std::string& name, const std::string& group) {
  core::PodObject pod;
  pod.meta.namespace_name = "ml";
  pod.meta.name = name;
  pod.meta.labels = {{"runai-gpu-group", group}};
  pod.meta.annotations = {{"gpu-fraction", "0.5"},
                          {"runai/shared-gpu-configmap", name + "-abcdefg-shared-gpu"}};
  pod.scheduler_name = "quotient";
  pod.node_name = "n1";
  pod.phase = core::PodPhase::kRunning;
  return pod;
}

struct Fixture {
  ScriptedTransport* transport = nullptr;
  std::unique_ptr<kubeclient::Client> client;
  std::unique_ptr<GpuSharingBinder> binder;
  Fixture() {
    auto t = std::make_unique<ScriptedTransport>();
    transport = t.get();
    client = std::make_unique<kubeclient::Client>(std::move(t), kubeclient::ClientOptions{});
    GpuSharingOptions options;
    options.collect_grace = seconds(30);
    binder = std::make_unique<GpuSharingBinder>(*client, options);
  }
  std::vector<std::string> Deleted() const {
    std::vector<std::string> out;
    for (const kubeclient::HttpRequest& r : transport->requests) {
      if (r.method == "DELETE") out.push_back(r.target);
      if (r.method == "POST") out.push_back("evict " + r.target);
    }
    return out;
  }
};

TEST(GpuSharingBinderTest, ReservationNamesAreStablePerGroupAndValidPodNames) {
  const std::string a = GpuSharingBinder::ReservationName("node-7", "node-7-gpu2");
  EXPECT_EQ(a, GpuSharingBinder::ReservationName("node-7", "node-7-gpu2"));
  EXPECT_NE(a, GpuSharingBinder::ReservationName("node-7", "node-7-gpu3"));
  EXPECT_EQ(a.rfind("gpu-reservation-node-7-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("gpu-reservation-node-7-").size() + 5);
  const std::string long_node(80, 'n');
  const std::string b = GpuSharingBinder::ReservationName(long_node, "g");
  EXPECT_LE(b.size(), 63u);
  EXPECT_NE(b.back(), '-');
}

TEST(GpuSharingBinderTest, PortionsAreWrittenInHundredthsAsKaiDoes) {
  EXPECT_EQ(GpuSharingBinder::PortionText(500), "0.50");
  EXPECT_EQ(GpuSharingBinder::PortionText(250), "0.25");
  EXPECT_EQ(GpuSharingBinder::PortionText(1000), "1.00");
  EXPECT_EQ(GpuSharingBinder::PortionText(10), "0.01");
  EXPECT_EQ(GpuSharingBinder::PortionText(333), "0.34");  // never below what was asked
}

TEST(GpuSharingBinderTest, APodTheWebhookNeverSawIsRefusedBeforeAnyWrite) {
  Fixture f;
  core::PodObject pod = Fractional("p", "");
  pod.meta.labels.clear();
  pod.meta.annotations.erase("runai/shared-gpu-configmap");
  pod.node_name.clear();
  const Result<PreparedSharing> prepared = f.binder->Prepare({pod, "n1", {"n1-gpu0"}, 81920});
  ASSERT_FALSE(prepared.ok());
  EXPECT_NE(prepared.message().find("runai/shared-gpu-configmap"), std::string::npos);
  EXPECT_NE(prepared.message().find("pod ml/p"), std::string::npos);
  EXPECT_TRUE(f.transport->requests.empty());
}

TEST(GpuSharingBinderTest, AReservationNobodyHoldsIsDeletedOnlyAfterTheGrace) {
  Fixture f;
  const std::vector<core::PodObject> pods = {Reservation("r1", "g1"), Reservation("r2", "g2"),
                                             Fractional("f1", "g1")};
  const auto t0 = std::chrono::steady_clock::time_point{} + seconds(1000);
  EXPECT_EQ(f.binder->Collect(pods, t0).reservations_deleted, 0);
  EXPECT_EQ(f.binder->Collect(pods, t0 + seconds(29)).reservations_deleted, 0);
  EXPECT_TRUE(f.Deleted().empty());
  f.transport->Answer(200, "{}");
  EXPECT_EQ(f.binder->Collect(pods, t0 + seconds(30)).reservations_deleted, 1);
  ASSERT_EQ(f.Deleted().size(), 1u);
  EXPECT_EQ(f.Deleted()[0], "/api/v1/namespaces/quotient-resource-reservation/pods/r2");
}

TEST(GpuSharingBinderTest, AHolderReturningWithinTheGraceRestartsIt) {
  Fixture f;
  const auto t0 = std::chrono::steady_clock::time_point{} + seconds(1000);
  EXPECT_EQ(f.binder->Collect({Reservation("r1", "g1")}, t0).reservations_deleted, 0);
  // A fractional pod joins g1 (its label arrived): the clock stops.
  EXPECT_EQ(f.binder->Collect({Reservation("r1", "g1"), Fractional("f1", "g1")}, t0 + seconds(20))
                .reservations_deleted,
            0);
  // Unheld again: the grace starts over from here.
  EXPECT_EQ(f.binder->Collect({Reservation("r1", "g1")}, t0 + seconds(40)).reservations_deleted, 0);
  EXPECT_TRUE(f.Deleted().empty());
}

TEST(GpuSharingBinderTest, AFractionalPodWithoutItsReservationIsEvictedAfterTheGrace) {
  Fixture f;
  core::PodObject other = Fractional("theirs", "g9");
  other.scheduler_name = "kai-scheduler";  // another scheduler's pod is not ours to delete
  const std::vector<core::PodObject> pods = {Fractional("f1", "g1"), other};
  const auto t0 = std::chrono::steady_clock::time_point{} + seconds(1000);
  EXPECT_EQ(f.binder->Collect(pods, t0).orphans_deleted, 0);
  f.transport->Answer(201, "{}");
  EXPECT_EQ(f.binder->Collect(pods, t0 + seconds(31)).orphans_deleted, 1);
  ASSERT_EQ(f.Deleted().size(), 1u);
  EXPECT_EQ(f.Deleted()[0], "evict /api/v1/namespaces/ml/pods/f1/eviction");
}

}  // namespace
}  // namespace quotient::service
