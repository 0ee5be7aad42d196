#include "actions/predicates.h"

#include <gtest/gtest.h>

namespace quotient::actions {
namespace {

using core::SelectorRequirement;
using core::Taint;
using core::Toleration;

TEST(Tolerates, EqualNeedsKeyAndValueExistsNeedsKeyOnly) {
  const Taint t{"dedicated", "infra", "NoSchedule"};
  EXPECT_TRUE(Tolerates({{"dedicated", "Equal", "infra", "NoSchedule"}}, t));
  EXPECT_FALSE(Tolerates({{"dedicated", "Equal", "gpu", "NoSchedule"}}, t));
  EXPECT_TRUE(Tolerates({{"dedicated", "Exists", "", ""}}, t));
  EXPECT_FALSE(Tolerates({{"other", "Exists", "", ""}}, t));
  EXPECT_FALSE(Tolerates({}, t));
}

TEST(Tolerates, EmptyKeyWithExistsToleratesEverythingAndEffectsMustMatch) {
  const Taint t{"k", "v", "NoExecute"};
  EXPECT_TRUE(Tolerates({{"", "Exists", "", ""}}, t));
  EXPECT_FALSE(Tolerates({{"k", "Equal", "v", "NoSchedule"}}, t));
  EXPECT_TRUE(Tolerates({{"k", "Equal", "v", "NoExecute"}}, t));
}

// KAI's node_info.go, PredicateByNodeResourcesType, kind by kind and node by node.
TEST(MigReason, KaisRulesForEachKindOfPodAndNode) {
  using Kind = core::GpuSharing::Kind;
  const auto pod = [](Kind kind, bool legacy = false) {
    core::Pod p;
    p.gpu.kind = kind;
    p.gpu.legacy_mig = legacy;
    return p;
  };
  const auto node = [](bool mig, core::MigStrategy strategy, int32_t legacy_pods = 0) {
    core::Node n;
    n.mig_enabled = mig;
    n.mig_strategy = strategy;
    n.legacy_mig_pods = legacy_pods;
    return n;
  };
  using S = core::MigStrategy;
  const core::Node plain = node(false, S::kUnset);
  const core::Node mixed = node(true, S::kMixed);
  const core::Node single = node(true, S::kSingle);
  const core::Node unset = node(true, S::kUnset);
  const core::Node with_legacy = node(true, S::kMixed, 1);
  const std::string legacy = "node(s) can't take legacy MIG pods (annotation nvidia.com/mig-*)";
  for (const core::Node* n : {&plain, &mixed, &single, &unset, &with_legacy}) {
    EXPECT_EQ(MigReason(pod(Kind::kMig, true), *n), legacy);
    EXPECT_EQ(MigReason(pod(Kind::kNone), *n), "");  // CPU-only: anywhere
  }
  EXPECT_EQ(MigReason(pod(Kind::kMig), plain), "node(s) are not MIG-enabled");
  EXPECT_EQ(MigReason(pod(Kind::kMig), mixed), "");
  EXPECT_EQ(MigReason(pod(Kind::kMig), unset), "");
  EXPECT_EQ(MigReason(pod(Kind::kMig), with_legacy), "node(s) run legacy MIG pods");
  EXPECT_EQ(MigReason(pod(Kind::kMig), single),
            "node(s) have MIG strategy single and take only whole GPUs");
  for (const Kind k : {Kind::kWhole, Kind::kFraction, Kind::kMemory}) {
    EXPECT_EQ(MigReason(pod(k), plain), "");
    EXPECT_EQ(MigReason(pod(k), unset), "");   // no strategy: no refusal by kind
    EXPECT_EQ(MigReason(pod(k), with_legacy),  // legacy pods keep only MIG pods away
              "node(s) have MIG strategy mixed and take only MIG instances");
    EXPECT_EQ(MigReason(pod(k), mixed),
              "node(s) have MIG strategy mixed and take only MIG instances");
  }
  EXPECT_EQ(MigReason(pod(Kind::kWhole), single), "");
  EXPECT_EQ(MigReason(pod(Kind::kFraction), single),
            "node(s) have MIG strategy single and take only whole GPUs");
  EXPECT_EQ(MigReason(pod(Kind::kMemory), single),
            "node(s) have MIG strategy single and take only whole GPUs");
}

TEST(MatchesRequirement, EveryOperator) {
  const core::Labels labels = {{"zone", "a"}, {"gpus", "8"}};
  EXPECT_TRUE(MatchesRequirement(labels, {"zone", "In", {"a", "b"}}));
  EXPECT_FALSE(MatchesRequirement(labels, {"zone", "In", {"b"}}));
  EXPECT_FALSE(MatchesRequirement(labels, {"missing", "In", {"a"}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"zone", "NotIn", {"b"}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"missing", "NotIn", {"b"}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"zone", "Exists", {}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"missing", "DoesNotExist", {}}));
  EXPECT_FALSE(MatchesRequirement(labels, {"zone", "DoesNotExist", {}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"gpus", "Gt", {"4"}}));
  EXPECT_FALSE(MatchesRequirement(labels, {"gpus", "Gt", {"8"}}));
  EXPECT_TRUE(MatchesRequirement(labels, {"gpus", "Lt", {"9"}}));
  EXPECT_FALSE(MatchesRequirement(labels, {"zone", "Gt", {"1"}}));  // not an integer
  EXPECT_FALSE(MatchesRequirement(labels, {"missing", "Lt", {"1"}}));
}

TEST(MatchesNodeAffinity, TermsAreOredRequirementsAnded) {
  core::Node node;
  node.name = "n1";
  node.labels = {{"zone", "a"}, {"type", "h100"}};
  core::Affinity affinity;
  EXPECT_TRUE(MatchesNodeAffinity(node, affinity));  // no terms: no constraint
  core::NodeSelectorTerm wrong_zone;
  wrong_zone.match_expressions = {{"zone", "In", {"b"}}};
  core::NodeSelectorTerm right;
  right.match_expressions = {{"zone", "In", {"a"}}, {"type", "In", {"h100"}}};
  affinity.required_node_terms = {wrong_zone};
  EXPECT_FALSE(MatchesNodeAffinity(node, affinity));
  affinity.required_node_terms = {wrong_zone, right};
  EXPECT_TRUE(MatchesNodeAffinity(node, affinity));
  core::NodeSelectorTerm by_name;
  by_name.match_fields = {{"metadata.name", "In", {"n2"}}};
  affinity.required_node_terms = {by_name};
  EXPECT_FALSE(MatchesNodeAffinity(node, affinity));
  by_name.match_fields = {{"metadata.name", "In", {"n1"}}};
  affinity.required_node_terms = {by_name};
  EXPECT_TRUE(MatchesNodeAffinity(node, affinity));
}

TEST(MatchesSelector, LabelsAndExpressions) {
  core::LabelSelector s;
  s.match_labels = {{"app", "train"}};
  s.match_expressions = {{"tier", "NotIn", {"web"}}};
  EXPECT_TRUE(MatchesSelector(s, {{"app", "train"}}));
  EXPECT_FALSE(MatchesSelector(s, {{"app", "train"}, {"tier", "web"}}));
  EXPECT_FALSE(MatchesSelector(s, {{"app", "serve"}}));
  EXPECT_TRUE(MatchesSelector(core::LabelSelector{}, {{"anything", "x"}}));
}

}  // namespace
}  // namespace quotient::actions
