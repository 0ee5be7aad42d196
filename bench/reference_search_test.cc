// The search shortcuts must not change any decision or explanation: a full cycle of all five
// actions on generated clusters, once with the shortcuts and once on the straightforward
// search (SchedulerConfig::reference_search), must agree exactly. The scenario tests make the
// same comparison on every hand-written scenario.
#include <gtest/gtest.h>

#include "actions/registry.h"
#include "core/snapshot_builder.h"
#include "framework/session.h"
#include "preset_cluster.h"

namespace quotient::bench {
namespace {

struct Outcome {
  std::vector<std::string> decisions;
  std::vector<std::string> reasons;
};

Outcome RunCycle(const core::Snapshot& snapshot, framework::SchedulerConfig config,
                 bool reference) {
  config.reference_search = reference;
  framework::Session session(snapshot, config);
  for (const std::string& name : config.actions) actions::MakeAction(name)->Execute(session);
  Outcome o;
  for (const framework::Decision& d : session.decisions()) {
    std::string line = d.action + " " + std::string(framework::DecisionKindName(d.kind)) + " " +
                       d.pod + " " + d.node;
    for (const std::string& g : d.gpu_groups) line += " " + g;
    o.decisions.push_back(line + " " + d.reason);
  }
  for (size_t j = 0; j < snapshot.jobs.size(); ++j) {
    for (const std::string& r : session.JobReasons(static_cast<core::Index>(j))) {
      o.reasons.push_back(snapshot.jobs[j].key + ": " + r);
    }
  }
  return o;
}

// The first line where two lists differ, for a readable failure.
std::string FirstDifference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const auto at = [i](const std::vector<std::string>& v) {
    return i < v.size() ? v[i] : std::string("(end)");
  };
  return "line " + std::to_string(i) + ": shortcuts '" + at(a) + "', reference '" + at(b) + "'";
}

void ExpectSameOutcome(const std::string& preset, const framework::SchedulerConfig& config) {
  core::SnapshotOptions options;
  options.now = core::Time(std::chrono::seconds(1'790'000'000));
  const core::Snapshot snapshot = core::BuildSnapshot(PresetObjects(preset), options).snapshot;
  const Outcome fast = RunCycle(snapshot, config, false);
  const Outcome reference = RunCycle(snapshot, config, true);
  // A cycle that decides nothing would make the comparison empty.
  EXPECT_GT(fast.decisions.size(), 10u) << preset;
  EXPECT_FALSE(fast.reasons.empty()) << preset;
  EXPECT_TRUE(fast.decisions == reference.decisions)
      << preset << ": " << FirstDifference(fast.decisions, reference.decisions);
  EXPECT_TRUE(fast.reasons == reference.reasons)
      << preset << ": " << FirstDifference(fast.reasons, reference.reasons);
}

framework::SchedulerConfig Spread() {
  framework::SchedulerConfig config;
  framework::Tier tier;
  tier.plugins.push_back({"nodeplacement", {{"gpu", "spread"}, {"cpu", "spread"}}});
  config.tiers.push_back(tier);
  return config;
}

framework::SchedulerConfig Fragmentation() {
  framework::SchedulerConfig config;
  framework::Tier tier;
  tier.plugins.push_back({"nodeplacement", {{"gpu", "fragmentation"}}});
  config.tiers.push_back(tier);
  return config;
}

TEST(ReferenceSearchTest, LargePresetBinpack) { ExpectSameOutcome("large", {}); }

TEST(ReferenceSearchTest, LargePresetSpread) { ExpectSameOutcome("large", Spread()); }

// The fragmentation strategy keeps every node's score per pod shape and checks nodes best
// first; the reference scores every node afresh.
TEST(ReferenceSearchTest, LargePresetFragmentation) { ExpectSameOutcome("large", Fragmentation()); }

TEST(ReferenceSearchTest, SmallPresetWithPoolsAndMixedGpus) {
  ExpectSameOutcome("small-pools-mixed", {});
  ExpectSameOutcome("small-pools-mixed", Spread());
  ExpectSameOutcome("small-pools-mixed", Fragmentation());
}

TEST(ReferenceSearchTest, ReclaimLargeJobsFragmentation) {
  ExpectSameOutcome("reclaim-1000", Fragmentation());
}

TEST(ReferenceSearchTest, ReclaimLargeJobs) { ExpectSameOutcome("reclaim-1000", {}); }

}  // namespace
}  // namespace quotient::bench
