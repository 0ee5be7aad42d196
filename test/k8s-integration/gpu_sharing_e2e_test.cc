// Fractional pods end to end on the real API server: `quotient webhook` wires them at creation,
// `quotient scheduler` places them, creates the GPU reservation pods, labels and ConfigMaps,
// binds, and collects reservations nobody holds.
//
// The fake nodes run no containers, so this test plays the node's part for reservation pods:
// for each one it runs the real `quotient gpu-reservation` (as the container would), against a
// fake libnvidia-ml.so.1 (src/interposer/test/fake_nvml.cc) that shows one GPU with a UUID of
// the test's choosing — a test double of the NVML read, nothing else.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "webhook_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::ConfigMaps;
using kubeclient::resources::Pods;
using nlohmann::json;

constexpr char kScheduler[] = "quotient-gshare";
constexpr int64_t kNodeGpuMemoryMib = 81920;

// Runs `quotient gpu-reservation` for every reservation pod of `ns` while serving, as the node's
// container would; each sees one GPU, "GPU-<pod name>".
class FakeGpuNode {
 public:
  explicit FakeGpuNode(const std::string& ns) : ns_(ns), thread_([this] { Loop(); }) {}
  ~FakeGpuNode() {
    stop_ = true;
    thread_.join();
  }
  void Serve(bool on) { serving_ = on; }
  static std::string UuidOf(const std::string& pod) { return "GPU-" + pod; }

 private:
  void Loop() {
    auto admin = AdminClient();
    while (!stop_) {
      auto pods = admin->List(Pods(), ns_, {});
      if (pods.ok()) {
        std::set<std::string> present;
        for (const kubeclient::RawObject& pod : pods->items) {
          present.insert(pod.name);
          if (!serving_ || pod.deleting || running_.count(pod.name) != 0) continue;
          running_[pod.name] = std::make_unique<ChildProcess>(
              std::vector<std::string>{
                  "/usr/bin/env", "FAKE_NVML_UUIDS=" + UuidOf(pod.name), QUOTIENT_BINARY,
                  "gpu-reservation", "--kubeconfig", Harness().admin_kubeconfig(), "--pod-name",
                  pod.name, "--pod-namespace", ns_, "--nvml-library", QUOTIENT_FAKE_NVML},
              false, Harness().data_dir() + "/gpu-reservation-" + pod.name + ".log");
        }
        // A deleted pod's container stops.
        std::erase_if(running_, [&](const auto& entry) { return present.count(entry.first) == 0; });
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }

  std::string ns_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> serving_{true};
  std::map<std::string, std::unique_ptr<ChildProcess>> running_;
  std::thread thread_;
};

class GpuSharingE2ETest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    cluster_ = new TwoNodeCluster("gshare", {{"gshare-team", -1}});
    kubeclient::Client& admin = *cluster_->admin;
    for (const std::string& node : cluster_->nodes) {
      // GPU memory per device, as the GPU operator's feature discovery labels it.
      EXPECT_TRUE(admin
                      .Patch(kubeclient::resources::Nodes(), "", node,
                             kubeclient::PatchType::kMerge,
                             R"({"metadata":{"labels":{"nvidia.com/gpu.memory":")" +
                                 std::to_string(kNodeGpuMemoryMib) + R"("}}})")
                      .ok());
    }
    reservations_ = CreateNamespace(admin, "gshare-reservations");
    webhook_ = new RegisteredWebhook(admin, "quotient-it-gshare", kScheduler, "gshare");
    ASSERT_TRUE(webhook_->Cover(cluster_->ns, kScheduler, "gshare"));
    node_ = new FakeGpuNode(reservations_);
    scheduler_ = new SchedulerProcess(
        kScheduler, "",
        {"--resource-reservation-namespace", reservations_,
         "--resource-reservation-allocation-timeout", "5s", "--resource-reservation-collect-grace",
         "2s", "--log-level", "debug"});
  }
  static void TearDownTestSuite() {
    delete scheduler_;
    delete node_;
    delete webhook_;
    EXPECT_TRUE(
        cluster_->admin->Delete(kubeclient::resources::Namespaces(), "", reservations_).ok());
    delete cluster_;
  }

  static json FractionalPod(const std::string& name, const std::string& fraction) {
    json pod = json::parse(GpuPod(name, kScheduler, "gshare-team", 0));
    pod["spec"]["containers"][0]["resources"].erase("limits");
    pod["metadata"]["annotations"]["gpu-fraction"] = fraction;
    return pod;
  }
  static json Get(const kubeclient::Resource& resource, const std::string& ns,
                  const std::string& name) {
    auto object = cluster_->admin->Get(resource, ns, name);
    return object.ok() ? json::parse(object->json) : json();
  }
  static std::vector<json> ReservationPods() {
    std::vector<json> out;
    auto pods = cluster_->admin->List(Pods(), reservations_, {});
    if (!pods.ok()) return out;
    for (const kubeclient::RawObject& pod : pods->items) {
      if (!pod.deleting) out.push_back(json::parse(pod.json));
    }
    return out;
  }
  static bool Bound(const std::string& pod) {
    return !NodeOf(*cluster_->admin, cluster_->ns, pod).empty();
  }

  static inline TwoNodeCluster* cluster_ = nullptr;
  static inline std::string reservations_;
  static inline RegisteredWebhook* webhook_ = nullptr;
  static inline FakeGpuNode* node_ = nullptr;
  static inline SchedulerProcess* scheduler_ = nullptr;
};

TEST_F(GpuSharingE2ETest, FractionalPodsAreBoundWiredAndTheirReservationCollected) {
  kubeclient::Client& admin = *cluster_->admin;
  const std::string& ns = cluster_->ns;
  ASSERT_TRUE(admin.Create(Pods(), ns, FractionalPod("half", "0.5").dump()).ok());
  ASSERT_TRUE(WaitFor([&] { return Bound("half"); }, std::chrono::seconds(30)))
      << scheduler_->Log();
  ASSERT_TRUE(admin.Create(Pods(), ns, FractionalPod("quarter", "0.25").dump()).ok());
  ASSERT_TRUE(WaitFor([&] { return Bound("quarter"); }, std::chrono::seconds(30)))
      << scheduler_->Log();

  const json half = Get(Pods(), ns, "half");
  const json quarter = Get(Pods(), ns, "quarter");
  const std::string group = half["metadata"]["labels"].value("runai-gpu-group", "");
  ASSERT_FALSE(group.empty()) << half.dump();
  // Bin-packing puts the quarter on the half's GPU: one group, one reservation pod.
  EXPECT_EQ(quarter["metadata"]["labels"].value("runai-gpu-group", ""), group);
  EXPECT_EQ(half["spec"]["nodeName"], quarter["spec"]["nodeName"]);
  const std::vector<json> reservations = ReservationPods();
  ASSERT_EQ(reservations.size(), 1u);
  const json& reservation = reservations.front();
  EXPECT_EQ(reservation["metadata"]["labels"]["runai-gpu-group"], group);
  EXPECT_EQ(reservation["metadata"]["labels"]["app"], "quotient-gpu-reservation");
  EXPECT_EQ(reservation["spec"]["nodeName"], half["spec"]["nodeName"]);
  EXPECT_EQ(reservation["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(reservation["spec"]["containers"][0]["args"][0], "gpu-reservation");
  const std::string uuid = FakeGpuNode::UuidOf(reservation["metadata"]["name"]);
  EXPECT_EQ(reservation["metadata"]["annotations"]["run.ai/reserve_for_gpu_index"], uuid);

  // Each pod's ConfigMap: the reserved GPU, its portion, its memory limit: the portion of the
  // device's memory as the scheduler counts it (KAI floors the label to 100 MiB: 81900 MiB).
  constexpr int64_t kCountedMib = kNodeGpuMemoryMib / 100 * 100;
  const auto expect_config = [&](const json& pod, const std::string& portion, int64_t bytes) {
    const std::string prefix = pod["metadata"]["annotations"]["runai/shared-gpu-configmap"];
    const json config = Get(ConfigMaps(), ns, prefix + "-0");
    ASSERT_TRUE(config.is_object()) << "no ConfigMap " << prefix << "-0";
    EXPECT_EQ(config["data"]["NVIDIA_VISIBLE_DEVICES"], uuid);
    EXPECT_EQ(config["data"]["GPU_PORTION"], portion);
    EXPECT_EQ(config["data"]["RUNAI_NUM_OF_GPUS"], portion);
    EXPECT_EQ(config["data"]["QUOTIENT_GPU_MEMORY_LIMIT"], std::to_string(bytes));
    EXPECT_EQ(config["metadata"]["ownerReferences"][0]["uid"], pod["metadata"]["uid"]);
  };
  expect_config(half, "0.50", kCountedMib * 1048576 / 2);
  expect_config(quarter, "0.25", kCountedMib * 1048576 / 4);

  // The last holder gone, the reservation pod is collected (grace 2 s).
  ASSERT_TRUE(admin.Delete(Pods(), ns, "half").ok());
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(ReservationPods().size(), 1u) << "collected while the quarter still holds the GPU";
  ASSERT_TRUE(admin.Delete(Pods(), ns, "quarter").ok());
  EXPECT_TRUE(WaitFor([&] { return ReservationPods().empty(); }, std::chrono::seconds(30)))
      << scheduler_->Log();
}

TEST_F(GpuSharingE2ETest, AReservationThatGetsNoGpuIsRolledBackAndTheBindRetried) {
  kubeclient::Client& admin = *cluster_->admin;
  const std::string& ns = cluster_->ns;
  node_->Serve(false);  // the device plugin gives the reservation pod nothing
  ASSERT_TRUE(admin.Create(Pods(), ns, FractionalPod("stuck", "0.5").dump()).ok());
  // The first attempt times out (5 s): nothing of it stays.
  ASSERT_TRUE(WaitFor([&] { return scheduler_->LogContains("published no GPU UUID"); },
                      std::chrono::seconds(30)))
      << scheduler_->Log();
  EXPECT_FALSE(Bound("stuck"));
  const json stuck = Get(Pods(), ns, "stuck");
  EXPECT_FALSE(stuck["metadata"].value("labels", json::object()).contains("runai-gpu-group"));
  const std::string prefix = stuck["metadata"]["annotations"]["runai/shared-gpu-configmap"];
  EXPECT_FALSE(admin.Get(ConfigMaps(), ns, prefix + "-0").ok());
  EXPECT_TRUE(WaitFor([&] { return ReservationPods().empty(); }, std::chrono::seconds(10)));
  // The GPU arrives: the retry (after its back-off) binds the pod.
  node_->Serve(true);
  EXPECT_TRUE(WaitFor([&] { return Bound("stuck"); }, std::chrono::seconds(60)))
      << scheduler_->Log();
  ASSERT_TRUE(admin.Delete(Pods(), ns, "stuck").ok());
  EXPECT_TRUE(WaitFor([&] { return ReservationPods().empty(); }, std::chrono::seconds(30)));
}

TEST_F(GpuSharingE2ETest, AFractionalPodTheWebhookNeverSawIsNotBound) {
  kubeclient::Client& admin = *cluster_->admin;
  // A namespace the webhook does not cover, as if its failure policy (Ignore) had let the pod
  // through unwired.
  const std::string uncovered = CreateNamespace(admin, "gshare-uncovered");
  ASSERT_TRUE(admin.Create(Pods(), uncovered, FractionalPod("unwired", "0.5").dump()).ok());
  EXPECT_TRUE(WaitFor([&] { return scheduler_->LogContains("no runai/shared-gpu-configmap"); },
                      std::chrono::seconds(30)))
      << scheduler_->Log();
  EXPECT_TRUE(NodeOf(admin, uncovered, "unwired").empty());
  EXPECT_TRUE(ReservationPods().empty());
  EXPECT_TRUE(admin.Delete(kubeclient::resources::Namespaces(), "", uncovered).ok());
}

TEST_F(GpuSharingE2ETest, AFractionalPodWhoseReservationIsDeletedIsEvictedAsKaiDoes) {
  kubeclient::Client& admin = *cluster_->admin;
  const std::string& ns = cluster_->ns;
  ASSERT_TRUE(admin.Create(Pods(), ns, FractionalPod("orphan", "0.5").dump()).ok());
  ASSERT_TRUE(WaitFor([&] { return Bound("orphan"); }, std::chrono::seconds(30)))
      << scheduler_->Log();
  const std::vector<json> reservations = ReservationPods();
  ASSERT_EQ(reservations.size(), 1u);
  ASSERT_TRUE(admin.Delete(Pods(), reservations_, reservations.front()["metadata"]["name"]).ok());
  // Its GPU is no longer reserved from the device plugin: the pod is evicted (its controller,
  // if any, makes a new one that is scheduled afresh).
  EXPECT_TRUE(
      WaitFor([&] { return !admin.Get(Pods(), ns, "orphan").ok(); }, std::chrono::seconds(30)))
      << scheduler_->Log();
}

}  // namespace
}  // namespace quotient::k8s_integration
