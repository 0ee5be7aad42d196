#include "traces/openb_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/gpu_sharing.h"
#include "kube/loader.h"
#include "simulate/workload_times.h"

namespace quotient::traces {
namespace {

constexpr const char* kHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
    "deletion_time,scheduled_time\n";

class OpenbTraceTest : public ::testing::Test {
 protected:
  OpenbTraceTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("openb-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Write("nodes.csv",
          "sn,cpu_milli,memory_mib,gpu,model\n"
          "openb-node-0000,64000,262144,2,P100\n"
          "openb-node-0001,96000,393216,8,V100M32\n"
          "openb-node-0002,32000,262144,0,\n");
  }
  ~OpenbTraceTest() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The trace's objects as `quotient simulate` reads them.
  static core::ClusterObjects Load(const OpenbTrace& trace) {
    std::ostringstream text;
    generate::WriteObjects(
        [&](const generate::ObjectVisitor& visit) { ForEachOpenbObject(trace, visit); },
        generate::OutputFormat::kJson, text);
    kube::LoadResult loaded;
    kube::DecodeManifestText(text.str(), "openb.json", loaded);
    EXPECT_FALSE(loaded.HasErrors());
    return loaded.objects;
  }

  static const core::PodObject& PodNamed(const core::ClusterObjects& o, const std::string& name) {
    for (const core::PodObject& p : o.pods) {
      if (p.meta.name == name) return p;
    }
    ADD_FAILURE() << "no pod " << name;
    return o.pods.front();
  }

  static core::GpuSharing GpuOf(const core::PodObject& pod) {
    Result<core::GpuSharing> gpu = core::ReadGpuSharing(pod, pod.containers.front().requests);
    EXPECT_TRUE(gpu.ok()) << gpu.message();
    return gpu.ok() ? gpu.value() : core::GpuSharing{};
  }

  std::filesystem::path dir_;
};

TEST_F(OpenbTraceTest, NodesKeepTheirShapeAndGpuModel) {
  Write("pods.csv", std::string(kHeader) + "openb-pod-0000,1000,1024,0,0,,LS,Running,5,10,5\n");
  Result<OpenbTrace> trace = ReadOpenb(Path("nodes.csv"), Path("pods.csv"));
  ASSERT_TRUE(trace.ok()) << trace.message();
  const core::ClusterObjects o = Load(trace.value());
  ASSERT_EQ(o.nodes.size(), 3u);
  const core::NodeObject& v100 = o.nodes[1];
  EXPECT_EQ(v100.meta.name, "openb-node-0001");
  EXPECT_EQ(v100.meta.labels.at("nvidia.com/gpu.product"), "V100M32");
  EXPECT_EQ(v100.allocatable.cpu_milli.value(), 96000);
  EXPECT_EQ(v100.allocatable.memory_bytes.value(), int64_t{393216} * 1024 * 1024);
  EXPECT_EQ(v100.allocatable.gpu_milli.value(), 8000);
  EXPECT_TRUE(v100.ready);
  // The CPU-only node: no GPUs, no model.
  EXPECT_EQ(o.nodes[2].allocatable.gpu_milli.value(), 0);
  EXPECT_EQ(o.nodes[2].meta.labels.count("nvidia.com/gpu.product"), 0u);
  // One queue deserving all 10 GPUs; one priority class.
  ASSERT_EQ(o.queues.size(), 1u);
  EXPECT_EQ(o.queues[0].meta.name, "openb");
  EXPECT_EQ(o.queues[0].resources[core::ShareResource::kGpu].quota,
            core::Bound::Of(core::Quantity(10000)));  // milli-GPU
  ASSERT_EQ(o.priority_classes.size(), 1u);
  EXPECT_EQ(o.priority_classes[0].value, 50);
}

TEST_F(OpenbTraceTest, PodsAskForWholeGpusFractionsOrNoneAndRunTheirTraceTimes) {
  Write("pods.csv",
        std::string(kHeader) +
            "openb-pod-0000,12000,16384,1,1000,,LS,Running,100,400,130\n"  // waited 30 s, ran 270
            "openb-pod-0001,6000,12288,1,470,,BE,Succeeded,40,90,40\n"     // earliest: first
            "openb-pod-0002,88000,327680,8,1000,,LS,Running,100,1000,100\n"
            "openb-pod-0003,12500,57344,0,0,,Burstable,Failed,200,200,200\n"  // 0 s: runs 1 s
            "openb-pod-0004,8000,30720,1,1000,,BE,Pending,300,394,\n"         // never scheduled
            "openb-pod-0005,4000,8192,1,5,,LS,Running,500,,500\n");           // never deleted
  Result<OpenbTrace> trace = ReadOpenb(Path("nodes.csv"), Path("pods.csv"));
  ASSERT_TRUE(trace.ok()) << trace.message();
  ASSERT_EQ(trace->pods.size(), 6u);
  // By creation, then file order: 0001 (40), 0000 and 0002 (100), 0003, 0004, 0005.
  EXPECT_EQ(trace->pods[0].name, "openb-pod-0001");
  EXPECT_EQ(trace->pods[1].name, "openb-pod-0000");
  EXPECT_EQ(trace->pods[2].name, "openb-pod-0002");

  const core::ClusterObjects o = Load(trace.value());
  ASSERT_EQ(o.pods.size(), 6u);
  EXPECT_TRUE(o.pod_groups.empty());  // each pod is a job of its own
  Result<std::map<std::string, simulate::PodTimes>> times = simulate::ReadPodTimes(o, "quotient");
  ASSERT_TRUE(times.ok()) << times.message();
  const auto arrival = [&](const std::string& pod) {
    return times->at("openb/" + pod).arrival.count();
  };
  const auto duration = [&](const std::string& pod) -> int64_t {
    const std::optional<std::chrono::seconds> d = times->at("openb/" + pod).duration;
    return d ? d->count() : -1;
  };
  // Arrival counts from the earliest creation (40); duration from scheduling to deletion.
  EXPECT_EQ(arrival("openb-pod-0001"), 0);
  EXPECT_EQ(duration("openb-pod-0001"), 50);
  EXPECT_EQ(arrival("openb-pod-0000"), 60);
  EXPECT_EQ(duration("openb-pod-0000"), 270);
  EXPECT_EQ(duration("openb-pod-0003"), 1);
  EXPECT_EQ(arrival("openb-pod-0004"), 260);
  EXPECT_EQ(duration("openb-pod-0004"), 94);  // as long as its request stood
  EXPECT_EQ(duration("openb-pod-0005"), -1);  // runs until the end

  const core::PodObject& whole = PodNamed(o, "openb-pod-0000");
  EXPECT_EQ(whole.scheduler_name, "quotient");
  EXPECT_EQ(whole.priority_class_name, "train");
  EXPECT_EQ(whole.meta.labels.at("kai.scheduler/queue"), "openb");
  EXPECT_EQ(whole.meta.labels.at("openb.quotient.dev/qos"), "LS");
  EXPECT_EQ(whole.meta.labels.at("openb.quotient.dev/phase"), "Running");
  EXPECT_EQ(whole.containers.front().requests.cpu_milli.value(), 12000);
  EXPECT_EQ(whole.containers.front().requests.memory_bytes.value(), int64_t{16384} << 20);
  EXPECT_EQ(GpuOf(whole).kind, core::GpuSharing::Kind::kWhole);
  EXPECT_EQ(GpuOf(whole).whole_devices, 1);
  EXPECT_TRUE(whole.affinity.required_node_terms.empty());

  const core::PodObject& share = PodNamed(o, "openb-pod-0001");
  EXPECT_EQ(share.meta.annotations.at("gpu-fraction"), "0.47");
  EXPECT_EQ(GpuOf(share).kind, core::GpuSharing::Kind::kFraction);
  EXPECT_EQ(GpuOf(share).portion_milli.value(), 470);
  EXPECT_EQ(share.containers.front().requests.gpu_milli.value(), 0);
  EXPECT_EQ(PodNamed(o, "openb-pod-0005").meta.annotations.at("gpu-fraction"), "0.005");

  const core::PodObject& eight = PodNamed(o, "openb-pod-0002");
  EXPECT_EQ(GpuOf(eight).kind, core::GpuSharing::Kind::kWhole);
  EXPECT_EQ(GpuOf(eight).whole_devices, 8);

  const core::PodObject& cpu = PodNamed(o, "openb-pod-0003");
  EXPECT_EQ(GpuOf(cpu).kind, core::GpuSharing::Kind::kNone);
  EXPECT_EQ(cpu.meta.annotations.count("gpu-fraction"), 0u);
  EXPECT_EQ(cpu.containers.front().requests.cpu_milli.value(), 12500);
}

TEST_F(OpenbTraceTest, AGpuSpecBecomesARequiredNodeAffinityOnTheModelLabel) {
  Write("pods.csv", std::string(kHeader) +
                        "openb-pod-0000,6000,12288,1,1000,V100M32|P100|V100M32,LS,Running,0,9,0\n");
  Result<OpenbTrace> trace = ReadOpenb(Path("nodes.csv"), Path("pods.csv"));
  ASSERT_TRUE(trace.ok()) << trace.message();
  EXPECT_EQ(trace->pods[0].gpu_models, (std::vector<std::string>{"P100", "V100M32"}));
  const core::ClusterObjects o = Load(trace.value());
  const core::PodObject& pod = PodNamed(o, "openb-pod-0000");
  ASSERT_EQ(pod.affinity.required_node_terms.size(), 1u);
  const core::NodeSelectorTerm& term = pod.affinity.required_node_terms[0];
  ASSERT_EQ(term.match_expressions.size(), 1u);
  EXPECT_EQ(term.match_expressions[0].key, "nvidia.com/gpu.product");
  EXPECT_EQ(term.match_expressions[0].op, "In");
  EXPECT_EQ(term.match_expressions[0].values, (std::vector<std::string>{"P100", "V100M32"}));
}

TEST_F(OpenbTraceTest, AMultiGpuListWithoutTimesArrivesAtTheStartAndNeverEnds) {
  Write("multigpu.csv",
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"
        "openb-pod-0000,12000,16384,1,1000\n"
        "openb-pod-0001,6000,12288,1,460\n"
        "openb-pod-0002,32000,65536,4,1000\n"
        "openb-pod-0003,16000,65536,2,500\n");  // half of each of two GPUs
  Result<OpenbTrace> trace = ReadOpenb(Path("nodes.csv"), Path("multigpu.csv"));
  ASSERT_TRUE(trace.ok()) << trace.message();
  ASSERT_EQ(trace->pods.size(), 4u);
  EXPECT_EQ(trace->pods[3].name, "openb-pod-0003");  // file order
  const core::ClusterObjects o = Load(trace.value());
  Result<std::map<std::string, simulate::PodTimes>> times = simulate::ReadPodTimes(o, "quotient");
  ASSERT_TRUE(times.ok()) << times.message();
  for (const auto& [key, t] : times.value()) {
    EXPECT_EQ(t.arrival.count(), 0) << key;
    EXPECT_FALSE(t.duration.has_value()) << key;
  }
  EXPECT_EQ(GpuOf(PodNamed(o, "openb-pod-0002")).whole_devices, 4);
  const core::GpuSharing halves = GpuOf(PodNamed(o, "openb-pod-0003"));
  EXPECT_EQ(halves.kind, core::GpuSharing::Kind::kFraction);
  EXPECT_EQ(halves.portion_milli.value(), 500);
  EXPECT_EQ(halves.num_devices, 2);
  EXPECT_EQ(PodNamed(o, "openb-pod-0000").meta.labels.count("openb.quotient.dev/qos"), 0u);
}

TEST_F(OpenbTraceTest, ALimitKeepsTheEarliestPods) {
  Write("pods.csv", std::string(kHeader) +
                        "openb-pod-0000,1000,1024,0,0,,LS,Running,300,400,300\n"
                        "openb-pod-0001,1000,1024,0,0,,LS,Running,100,400,100\n"
                        "openb-pod-0002,1000,1024,0,0,,LS,Running,200,400,200\n");
  Result<OpenbTrace> trace = ReadOpenb(Path("nodes.csv"), Path("pods.csv"), 2);
  ASSERT_TRUE(trace.ok()) << trace.message();
  ASSERT_EQ(trace->pods.size(), 2u);
  EXPECT_EQ(trace->pods[0].name, "openb-pod-0001");
  EXPECT_EQ(trace->pods[1].name, "openb-pod-0002");
  EXPECT_EQ(trace->nodes.size(), 3u);  // the limit is on pods only
}

TEST_F(OpenbTraceTest, BadRowsAreErrorsNamingFileLineAndColumn) {
  const auto error = [&](const std::string& nodes, const std::string& pods) {
    Result<OpenbTrace> trace = ReadOpenb(Path(nodes), Path(pods));
    EXPECT_FALSE(trace.ok());
    return trace.ok() ? std::string() : trace.message();
  };
  const auto pods = [&](const std::string& name, const std::string& rows) {
    Write(name, std::string(kHeader) + "openb-pod-0000,1000,1024,0,0,,LS,Running,0,10,0\n" + rows);
  };
  pods("gpus.csv", "openb-pod-0001,1000,1024,two,1000,,LS,Running,0,10,0\n");
  EXPECT_NE(error("nodes.csv", "gpus.csv").find("gpus.csv:3: column num_gpu"), std::string::npos);
  pods("milli.csv", "openb-pod-0001,1000,1024,1,1500,,LS,Running,0,10,0\n");
  EXPECT_NE(error("nodes.csv", "milli.csv").find("milli.csv:3: column gpu_milli"),
            std::string::npos);
  pods("cpu-share.csv", "openb-pod-0001,1000,1024,0,500,,LS,Running,0,10,0\n");
  EXPECT_NE(error("nodes.csv", "cpu-share.csv").find("cpu-share.csv:3: column gpu_milli"),
            std::string::npos);
  pods("spec.csv", "openb-pod-0001,1000,1024,1,1000,T4||P100,LS,Running,0,10,0\n");
  EXPECT_NE(error("nodes.csv", "spec.csv").find("spec.csv:3: column gpu_spec"), std::string::npos);
  pods("order.csv", "openb-pod-0001,1000,1024,1,1000,,LS,Running,50,10,50\n");
  EXPECT_NE(error("nodes.csv", "order.csv").find("order.csv:3: column deletion_time"),
            std::string::npos);
  pods("time.csv", "openb-pod-0001,1000,1024,1,1000,,LS,Running,soon,10,0\n");
  EXPECT_NE(error("nodes.csv", "time.csv").find("time.csv:3: column creation_time"),
            std::string::npos);
  pods("twice.csv", "openb-pod-0000,1000,1024,0,0,,LS,Running,0,10,0\n");
  EXPECT_NE(error("nodes.csv", "twice.csv").find("twice.csv:3: column name"), std::string::npos);
  pods("short.csv", "openb-pod-0001,1000,1024\n");
  EXPECT_NE(error("nodes.csv", "short.csv").find("short.csv"), std::string::npos);
  Write("header.csv", "name,cpu_milli,memory_mib,num_gpu\nopenb-pod-0000,1000,1024,0\n");
  EXPECT_NE(error("nodes.csv", "header.csv").find("header.csv: the header has no column gpu_milli"),
            std::string::npos);
  Write("bad-nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,64000,262144,-2,T4\n");
  pods("fine.csv", "");
  EXPECT_NE(error("bad-nodes.csv", "fine.csv").find("bad-nodes.csv:2: column gpu"),
            std::string::npos);
  EXPECT_NE(error("missing.csv", "fine.csv").find("missing.csv"), std::string::npos);
}

}  // namespace
}  // namespace quotient::traces
