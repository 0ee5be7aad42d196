// Presets and spec validation.
#include "generate/cluster_spec.h"

#include <gtest/gtest.h>

namespace quotient::generate {
namespace {

ClusterSpec Preset(std::string_view name) {
  Result<ClusterSpec> spec = PresetSpec(name);
  EXPECT_TRUE(spec.ok()) << spec.message();
  return spec.ok() ? spec.value() : ClusterSpec{};
}

TEST(PresetSpec, MixedPresetsHaveTenRunningPodsAndTwoPendingGroupsPerNode) {
  struct Expected {
    const char* name;
    int nodes, departments, projects, running_pods, pending_groups;
  };
  for (const Expected& e :
       {Expected{"small", 100, 2, 5, 1'000, 200}, Expected{"large", 1'000, 10, 10, 10'000, 2'000},
        Expected{"xlarge", 10'000, 20, 50, 100'000, 20'000}}) {
    const ClusterSpec spec = Preset(e.name);
    EXPECT_EQ(spec.workload, Workload::kMixed) << e.name;
    EXPECT_EQ(spec.nodes, e.nodes) << e.name;
    EXPECT_EQ(spec.departments, e.departments) << e.name;
    EXPECT_EQ(spec.projects_per_department, e.projects) << e.name;
    EXPECT_EQ(spec.running_pods, e.running_pods) << e.name;
    EXPECT_EQ(spec.pending_groups, e.pending_groups) << e.name;
    EXPECT_EQ(spec.gpus_per_node, 8) << e.name;
    EXPECT_EQ(spec.node_pools, 1) << e.name;
    EXPECT_EQ(spec.seed, 42u) << e.name;
    EXPECT_TRUE(ValidateSpec(spec).ok()) << e.name;
  }
}

TEST(PresetSpec, Reclaim1000IsKaisReclaimLargeJobsOnAThousandNodes) {
  const ClusterSpec spec = Preset("reclaim-1000");
  EXPECT_EQ(spec.workload, Workload::kReclaimLargeJobs);
  EXPECT_EQ(spec.nodes, 1000);
  EXPECT_EQ(spec.gpus_per_node, 8);
}

TEST(PresetSpec, DefaultSpecIsTheSmallPreset) {
  const ClusterSpec small = Preset("small");
  const ClusterSpec defaults;
  EXPECT_EQ(defaults.nodes, small.nodes);
  EXPECT_EQ(defaults.running_pods, small.running_pods);
  EXPECT_EQ(defaults.pending_groups, small.pending_groups);
  EXPECT_EQ(defaults.departments * defaults.projects_per_department,
            small.departments * small.projects_per_department);
}

TEST(PresetSpec, UnknownNameListsTheKnownOnes) {
  Result<ClusterSpec> spec = PresetSpec("huge");
  ASSERT_FALSE(spec.ok());
  EXPECT_EQ(spec.message(), "unknown preset \"huge\" (known: small, large, xlarge, reclaim-1000)");
}

TEST(ValidateSpec, NamesTheFlagOfTheFieldOutOfRange) {
  const auto message = [](auto change) {
    ClusterSpec spec;
    change(spec);
    return ValidateSpec(spec).message();
  };
  EXPECT_EQ(message([](ClusterSpec& s) { s.nodes = 0; }),
            "--nodes must be between 1 and 100000, got 0");
  EXPECT_EQ(message([](ClusterSpec& s) { s.gpus_per_node = 1; }),
            "--gpus-per-node must be between 2 and 16, got 1");
  EXPECT_EQ(message([](ClusterSpec& s) { s.node_pools = 101; }),
            "--pools must be between 1 and 100, got 101");
  EXPECT_EQ(message([](ClusterSpec& s) { s.running_pods = -1; }),
            "--running-pods must be between 0 and 10000000, got -1");
  EXPECT_EQ(message([](ClusterSpec& s) { s.gpu_memory_mib = 1024 * 1024; }),
            "--gpu-memory must be between 1000 and 1048575, got 1048576");
  EXPECT_EQ(message([](ClusterSpec& s) {
              s.departments = 1000;
              s.projects_per_department = 101;
            }),
            "--departments x --projects must be between 1 and 100000, got 101000");
}

}  // namespace
}  // namespace quotient::generate
