// The generated cluster read back the way `quotient schedule` reads it (kube loader, snapshot
// builder): counts follow the spec, nothing is reported as wrong, and the running state is one a
// scheduler could have produced. Expected figures come from the rules in cluster_spec.h,
// running_pods.cc, pending_groups.cc and reclaim_large_jobs.cc.
#include "generate/cluster_generator.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/snapshot_builder.h"
#include "kube/loader.h"

namespace quotient::generate {
namespace {

using core::Index;
using core::PodStatus;
using core::Snapshot;

ClusterSpec Preset(std::string_view name) {
  Result<ClusterSpec> spec = PresetSpec(name);
  EXPECT_TRUE(spec.ok()) << spec.message();
  return spec.ok() ? spec.value() : ClusterSpec{};
}

// A cluster small enough to check in every variant.
ClusterSpec Tiny() {
  ClusterSpec spec;
  spec.nodes = 12;
  spec.departments = 2;
  spec.projects_per_department = 4;
  spec.running_pods = 80;
  spec.pending_groups = 30;
  return spec;
}

std::string Text(const ClusterSpec& spec, OutputFormat format = OutputFormat::kJson) {
  Result<std::string> text = GenerateClusterText(spec, format);
  EXPECT_TRUE(text.ok()) << text.message();
  return text.ok() ? text.value() : std::string();
}

std::string Diagnostics(const std::vector<core::Diagnostic>& diagnostics) {
  std::string out;
  for (const core::Diagnostic& d : diagnostics) out += d.ToString() + "\n";
  return out;
}

kube::LoadResult Load(const std::string& text) {
  kube::LoadResult loaded;
  kube::DecodeManifestText(text, "generated", loaded);
  EXPECT_TRUE(loaded.diagnostics.empty()) << Diagnostics(loaded.diagnostics);
  return loaded;
}

Snapshot Build(const core::ClusterObjects& objects) {
  core::SnapshotBuild build = core::BuildSnapshot(objects, core::SnapshotOptions{});
  EXPECT_TRUE(build.diagnostics.empty()) << Diagnostics(build.diagnostics);
  return std::move(build.snapshot);
}

Snapshot Generate(const ClusterSpec& spec) { return Build(Load(Text(spec)).objects); }

// A pod's GPUs in milli-GPU, as its queue counts them (a 0.5 fraction is 500).
int64_t GpuMilli(const core::Pod& pod) {
  if (pod.gpu.kind == core::GpuSharing::Kind::kFraction) return pod.gpu.portion_milli.value();
  return pod.request.gpu_milli.value();
}

bool AllPodsRunning(const Snapshot& s, const core::Job& job) {
  for (Index p : job.pods) {
    if (s.pods[static_cast<size_t>(p)].status != PodStatus::kRunning) return false;
  }
  return !job.pods.empty();
}

bool NoPodRunning(const Snapshot& s, const core::Job& job) {
  for (Index p : job.pods) {
    if (s.pods[static_cast<size_t>(p)].status != PodStatus::kPending) return false;
  }
  return true;
}

// Running pods never exceed what a node has: CPU, memory, pods and whole GPUs within the
// allocatable, no device beyond the node's own, no shared device more than full.
void ExpectNoNodeOverCommitted(const Snapshot& s) {
  for (const core::Node& node : s.nodes) {
    const core::ResourceVector& a = node.allocatable;
    EXPECT_LE(node.used.cpu_milli.value(), a.cpu_milli.value()) << node.name;
    EXPECT_LE(node.used.memory_bytes.value(), a.memory_bytes.value()) << node.name;
    EXPECT_LE(node.used.pods_milli.value(), a.pods_milli.value()) << node.name;
    EXPECT_LE(node.used.gpu_milli.value(), a.gpu_milli.value()) << node.name;
    EXPECT_EQ(static_cast<int64_t>(node.gpus.size()) * 1000, a.gpu_milli.value()) << node.name;
    for (const core::GpuDevice& device : node.gpus) {
      EXPECT_LE(device.used_portion_milli.value(), 1000) << node.name << " " << device.group;
    }
  }
}

TEST(GenerateCluster, SameSpecGivesIdenticalTextAndAnotherSeedDifferentText) {
  const ClusterSpec spec = Preset("small");
  const std::string first = Text(spec);
  EXPECT_EQ(first, Text(spec));
  EXPECT_EQ(Text(spec, OutputFormat::kYaml), Text(spec, OutputFormat::kYaml));
  ClusterSpec other = spec;
  other.seed = 43;
  EXPECT_NE(first, Text(other));
}

TEST(GenerateCluster, JsonTextIsTheList) {
  const ClusterSpec spec = Tiny();
  Result<nlohmann::json> list = GenerateCluster(spec);
  ASSERT_TRUE(list.ok()) << list.message();
  EXPECT_EQ(nlohmann::json::parse(Text(spec)), list.value());
  EXPECT_EQ(list.value()["kind"], "List");
}

TEST(GenerateCluster, MixedPresetPlansHaveTheSpecsCounts) {
  for (const char* name : {"small", "large", "xlarge"}) {
    const ClusterSpec spec = Preset(name);
    Result<ClusterPlan> plan = PlanCluster(spec);
    ASSERT_TRUE(plan.ok()) << name << ": " << plan.message();
    const ClusterPlan& p = plan.value();
    EXPECT_EQ(static_cast<int>(p.nodes.size()), spec.nodes) << name;
    int leaves = 0;
    for (const PlannedQueue& q : p.queues) leaves += q.parent.empty() ? 0 : 1;
    EXPECT_EQ(leaves, spec.departments * spec.projects_per_department) << name;
    EXPECT_EQ(static_cast<int>(p.queues.size()), leaves + spec.departments) << name;
    int running = 0;
    std::set<std::pair<std::string, std::string>> pending_groups;
    for (const PlannedPod& pod : p.pods) {
      if (!pod.node.empty()) {
        ++running;
      } else {
        pending_groups.insert({pod.namespace_name, pod.pod_group});
      }
    }
    EXPECT_EQ(running, spec.running_pods) << name;
    EXPECT_EQ(static_cast<int>(pending_groups.size()), spec.pending_groups) << name;
  }
}

TEST(GenerateCluster, SmallPresetLoadsWithTheSpecsCountsAndNoProblems) {
  const ClusterSpec spec = Preset("small");
  const Snapshot s = Generate(spec);
  EXPECT_EQ(static_cast<int>(s.nodes.size()), spec.nodes);
  int leaves = 0;
  for (const core::Queue& q : s.queues) {
    EXPECT_TRUE(q.problems.empty()) << q.name << ": " << q.problems.front();
    leaves += q.is_leaf() ? 1 : 0;
  }
  EXPECT_EQ(leaves, spec.departments * spec.projects_per_department);
  int running = 0;
  for (const core::Pod& pod : s.pods) {
    EXPECT_TRUE(pod.ours) << pod.key;
    EXPECT_TRUE(pod.problems.empty()) << pod.key << ": " << pod.problems.front();
    EXPECT_TRUE(pod.status == PodStatus::kRunning || pod.status == PodStatus::kPending) << pod.key;
    if (pod.status == PodStatus::kRunning) {
      ++running;
      EXPECT_NE(pod.node, core::kNone) << pod.key;
    }
  }
  EXPECT_EQ(running, spec.running_pods);
  int pending_groups = 0;
  for (const core::Job& job : s.jobs) {
    EXPECT_TRUE(job.problems.empty()) << job.key << ": " << job.problems.front();
    EXPECT_NE(job.queue, core::kNone) << job.key;
    pending_groups += NoPodRunning(s, job) ? 1 : 0;
  }
  EXPECT_EQ(pending_groups, spec.pending_groups);
}

TEST(GenerateCluster, RunningMixFollowsTheTenths) {
  const ClusterSpec spec = Preset("small");  // 1,000 running pods: t = 100
  const Snapshot s = Generate(spec);
  int halves = 0, one_gpu = 0, two_gpus = 0, cpu_only = 0, in_gangs = 0;
  for (const core::Pod& pod : s.pods) {
    if (pod.status != PodStatus::kRunning) continue;
    const core::Job& job = s.jobs[static_cast<size_t>(pod.job)];
    if (!job.implicit) {
      ++in_gangs;
      EXPECT_EQ(GpuMilli(pod), 1000) << pod.key;
    } else if (pod.gpu.kind == core::GpuSharing::Kind::kFraction) {
      ++halves;
      EXPECT_EQ(GpuMilli(pod), 500) << pod.key;
      EXPECT_EQ(pod.gpu_groups.size(), 1u) << pod.key;
    } else if (GpuMilli(pod) == 1000) {
      ++one_gpu;
    } else if (GpuMilli(pod) == 2000) {
      ++two_gpus;
    } else {
      EXPECT_EQ(GpuMilli(pod), 0) << pod.key;
      ++cpu_only;
    }
  }
  EXPECT_EQ(halves, 200);
  EXPECT_EQ(two_gpus, 100);
  EXPECT_EQ(one_gpu, 300);
  EXPECT_EQ(in_gangs, 100);
  EXPECT_EQ(cpu_only, 300);
}

TEST(GenerateCluster, NoNodeIsOverCommitted) {
  ExpectNoNodeOverCommitted(Generate(Preset("small")));
  ClusterSpec pools_and_shapes = Tiny();
  pools_and_shapes.node_pools = 3;
  pools_and_shapes.mixed_gpus = true;
  ExpectNoNodeOverCommitted(Generate(pools_and_shapes));
  // Twice the presets' density, on nodes of 16 GPUs.
  ClusterSpec packed = Tiny();
  packed.running_pods = 20 * packed.nodes;
  packed.gpus_per_node = 16;
  ExpectNoNodeOverCommitted(Generate(packed));
}

TEST(GenerateCluster, RunningWorkStaysWithinLimitsAndNonPreemptibleWithinQuota) {
  const Snapshot s = Generate(Preset("small"));
  std::map<Index, int64_t> gpus, non_preemptible_gpus;
  for (const core::Pod& pod : s.pods) {
    if (pod.status != PodStatus::kRunning) continue;
    const core::Job& job = s.jobs[static_cast<size_t>(pod.job)];
    gpus[job.queue] += GpuMilli(pod);
    if (!job.preemptible) non_preemptible_gpus[job.queue] += GpuMilli(pod);
  }
  int limited = 0;
  for (const auto& [queue, used] : gpus) {
    const core::QueueResource& gpu =
        s.queues[static_cast<size_t>(queue)].resources[core::ShareResource::kGpu];
    if (!gpu.limit.is_unlimited()) {
      ++limited;
      EXPECT_LE(used, gpu.limit.amount().value()) << s.queues[static_cast<size_t>(queue)].name;
    }
    EXPECT_LE(non_preemptible_gpus[queue], gpu.quota.amount().value())
        << s.queues[static_cast<size_t>(queue)].name;
  }
  EXPECT_GT(limited, 0);
}

TEST(GenerateCluster, HasRunningGangsAndPreemptibleAndNonPreemptibleRunningWork) {
  const Snapshot s = Generate(Preset("small"));
  int gangs = 0, preemptible = 0, non_preemptible = 0;
  for (const core::Job& job : s.jobs) {
    if (!AllPodsRunning(s, job)) continue;
    if (job.min_member > 1) {
      ++gangs;
      EXPECT_EQ(static_cast<int>(job.pods.size()), job.min_member) << job.key;
    }
    (job.preemptible ? preemptible : non_preemptible) += 1;
  }
  EXPECT_GT(gangs, 0);
  EXPECT_GT(preemptible, 0);
  EXPECT_GT(non_preemptible, 0);
}

TEST(GenerateCluster, PoolsSplitTheNodesAndKeepEachPodInItsPool) {
  ClusterSpec spec = Tiny();
  spec.node_pools = 3;
  const Snapshot s = Generate(spec);
  std::map<std::string, int> nodes_per_pool;
  for (const core::Node& node : s.nodes) ++nodes_per_pool[node.node_pool];
  EXPECT_EQ(nodes_per_pool,
            (std::map<std::string, int>{{"pool-0", 4}, {"pool-1", 4}, {"pool-2", 4}}));
  std::set<std::string> pending_pools;
  for (const core::Pod& pod : s.pods) {
    const core::Job& job = s.jobs[static_cast<size_t>(pod.job)];
    if (pod.status == PodStatus::kRunning) {
      EXPECT_EQ(s.nodes[static_cast<size_t>(pod.node)].node_pool, job.node_pool) << pod.key;
    } else {
      pending_pools.insert(job.node_pool);
    }
  }
  EXPECT_EQ(pending_pools, (std::set<std::string>{"pool-0", "pool-1", "pool-2"}));
}

TEST(GenerateCluster, MixedGpusMakesEveryFourthNodeFourGpusOf40Gb) {
  ClusterSpec spec = Tiny();
  spec.mixed_gpus = true;
  const Snapshot s = Generate(spec);
  ASSERT_EQ(s.nodes.size(), 12u);
  for (size_t i = 0; i < s.nodes.size(); ++i) {  // names sort in index order
    const bool second_shape = i % 4 == 3;
    EXPECT_EQ(s.nodes[i].gpus.size(), second_shape ? 4u : 8u) << s.nodes[i].name;
    // The label says 40960 or 81920; KAI floors it to a multiple of 100 MiB.
    EXPECT_EQ(s.nodes[i].gpu_memory_mib, second_shape ? 40900 : 81900) << s.nodes[i].name;
  }
}

TEST(GenerateCluster, YamlDecodesToTheSameObjectsAsJson) {
  ClusterSpec spec = Tiny();
  spec.node_pools = 2;
  const core::ClusterObjects json = Load(Text(spec)).objects;
  const core::ClusterObjects yaml = Load(Text(spec, OutputFormat::kYaml)).objects;
  ASSERT_EQ(json.pods.size(), yaml.pods.size());
  for (size_t i = 0; i < json.pods.size(); ++i) {
    const core::PodObject& a = json.pods[i];
    const core::PodObject& b = yaml.pods[i];
    EXPECT_EQ(a.meta.Key(), b.meta.Key());
    EXPECT_EQ(a.meta.labels, b.meta.labels) << a.meta.Key();
    EXPECT_EQ(a.meta.annotations, b.meta.annotations) << a.meta.Key();
    EXPECT_EQ(a.meta.creation_time, b.meta.creation_time) << a.meta.Key();
    EXPECT_EQ(a.node_name, b.node_name) << a.meta.Key();
    EXPECT_EQ(a.phase, b.phase) << a.meta.Key();
    EXPECT_EQ(a.priority_class_name, b.priority_class_name) << a.meta.Key();
    ASSERT_EQ(a.containers.size(), 1u);
    ASSERT_EQ(b.containers.size(), 1u);
    EXPECT_EQ(a.containers[0].requests, b.containers[0].requests) << a.meta.Key();
  }
  ASSERT_EQ(json.nodes.size(), yaml.nodes.size());
  for (size_t i = 0; i < json.nodes.size(); ++i) {
    EXPECT_EQ(json.nodes[i].meta.labels, yaml.nodes[i].meta.labels);
    EXPECT_EQ(json.nodes[i].allocatable, yaml.nodes[i].allocatable);
  }
  ASSERT_EQ(json.queues.size(), yaml.queues.size());
  for (size_t i = 0; i < json.queues.size(); ++i) {
    EXPECT_EQ(json.queues[i].parent, yaml.queues[i].parent);
    for (core::ShareResource r : core::kShareResources) {
      EXPECT_EQ(json.queues[i].resources[r].quota, yaml.queues[i].resources[r].quota);
      EXPECT_EQ(json.queues[i].resources[r].limit, yaml.queues[i].resources[r].limit);
      EXPECT_EQ(json.queues[i].resources[r].over_quota_weight_milli,
                yaml.queues[i].resources[r].over_quota_weight_milli);
    }
  }
  ASSERT_EQ(json.pod_groups.size(), yaml.pod_groups.size());
  for (size_t i = 0; i < json.pod_groups.size(); ++i) {
    EXPECT_EQ(json.pod_groups[i].meta.Key(), yaml.pod_groups[i].meta.Key());
    EXPECT_EQ(json.pod_groups[i].queue, yaml.pod_groups[i].queue);
    EXPECT_EQ(json.pod_groups[i].min_member, yaml.pod_groups[i].min_member);
    EXPECT_EQ(json.pod_groups[i].meta.labels, yaml.pod_groups[i].meta.labels);
  }
  EXPECT_EQ(json.priority_classes.size(), yaml.priority_classes.size());
}

TEST(GenerateCluster, Reclaim1000IsEightThousandOneGpuPodsAndOneGangOfAHundredEightGpuPods) {
  const Snapshot s = Generate(Preset("reclaim-1000"));
  EXPECT_EQ(s.nodes.size(), 1000u);
  ExpectNoNodeOverCommitted(s);
  int running = 0;
  for (const core::Pod& pod : s.pods) {
    if (pod.status != PodStatus::kRunning) continue;
    ++running;
    EXPECT_EQ(GpuMilli(pod), 1000) << pod.key;
    EXPECT_EQ(s.queues[static_cast<size_t>(s.jobs[static_cast<size_t>(pod.job)].queue)].name,
              "queue-0");
  }
  EXPECT_EQ(running, 8 * 1000);
  const Index gang = s.FindJob("big/very-large-job");
  ASSERT_NE(gang, core::kNone);
  const core::Job& job = s.jobs[static_cast<size_t>(gang)];
  EXPECT_EQ(job.min_member, 1000 / 10);
  EXPECT_EQ(job.pods.size(), 100u);
  EXPECT_EQ(s.queues[static_cast<size_t>(job.queue)].name, "queue-1");
  EXPECT_TRUE(NoPodRunning(s, job));
  for (Index p : job.pods) EXPECT_EQ(GpuMilli(s.pods[static_cast<size_t>(p)]), 8000);
  int pending_jobs = 0;
  for (const core::Job& j : s.jobs) pending_jobs += NoPodRunning(s, j) ? 1 : 0;
  EXPECT_EQ(pending_jobs, 1);
}

TEST(GenerateCluster, RunningPodsBeyondTheNodesRoomAreAnError) {
  ClusterSpec spec = Tiny();
  spec.running_pods = 20 * spec.nodes;  // 0.7 GPU each: 14 GPUs per node of 8
  Result<ClusterPlan> plan = PlanCluster(spec);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.message(),
            "--running-pods 240 do not fit on the 12 nodes: out of GPUs; lower --running-pods or "
            "raise --nodes");
}

TEST(GenerateCluster, AnInvalidSpecIsAnError) {
  ClusterSpec spec;
  spec.nodes = 0;
  EXPECT_EQ(GenerateCluster(spec).message(), "--nodes must be between 1 and 100000, got 0");
}

}  // namespace
}  // namespace quotient::generate
