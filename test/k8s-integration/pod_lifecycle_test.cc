// Binding and eviction through the pod subresources, against the real API server with the
// harness's node simulator, kwok (bound pods start running; deleted pods go away) and the
// disruption controller (PodDisruptionBudget status).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::EvictionOutcome;
using kubeclient::resources::Nodes;
using kubeclient::resources::PodDisruptionBudgets;
using kubeclient::resources::Pods;

std::string Phase(kubeclient::Client& client, const std::string& ns, const std::string& pod) {
  auto p = client.Get(Pods(), ns, pod);
  return p.ok() ? JsonField(p->json, "status.phase") : "";
}

TEST(PodLifecycleTest, BindThenEvictAndABudgetAnswers429) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "bind");
  const std::string node = "fake-bind-node";
  ASSERT_TRUE(admin->Create(Nodes(), "", FakeNodeJson(node)).ok());

  ASSERT_TRUE(admin->Create(Pods(), ns, PodJson("free", R"({"app":"free"})")).ok());
  ASSERT_TRUE(admin->Create(Pods(), ns, PodJson("guarded", R"({"app":"guarded"})")).ok());
  for (const char* pod : {"free", "guarded"}) {
    auto p = admin->Get(Pods(), ns, pod);
    ASSERT_TRUE(p.ok());
    auto bound = admin->Bind(ns, pod, p->uid, node);
    ASSERT_TRUE(bound.ok()) << bound.error().Describe();
  }
  EXPECT_EQ(JsonField(admin->Get(Pods(), ns, "free")->json, "spec.nodeName"), node);
  ASSERT_TRUE(
      WaitFor([&] { return Phase(*admin, ns, "free") == "Running"; }, std::chrono::seconds(30)));
  ASSERT_TRUE(
      WaitFor([&] { return Phase(*admin, ns, "guarded") == "Running"; }, std::chrono::seconds(30)));

  // Binding again is refused: the pod is already bound.
  auto again = admin->Bind(ns, "free", "", node);
  EXPECT_TRUE(again.Is(kubeclient::ApiReason::kConflict))
      << (again.ok() ? "ok" : again.error().Describe());
  // A stale uid precondition is refused too.
  ASSERT_TRUE(admin->Create(Pods(), ns, PodJson("late")).ok());
  auto wrong_uid = admin->Bind(ns, "late", "00000000-0000-0000-0000-000000000000", node);
  EXPECT_FALSE(wrong_uid.ok());

  // Evicting an unguarded pod: accepted, and the pod goes away.
  auto evicted = admin->Evict(ns, "free", admin->Get(Pods(), ns, "free")->uid);
  ASSERT_TRUE(evicted.ok()) << evicted.error().Describe();
  EXPECT_EQ(*evicted, EvictionOutcome::kEvicted);
  EXPECT_TRUE(
      WaitFor([&] { return admin->Get(Pods(), ns, "free").Is(kubeclient::ApiReason::kNotFound); },
              std::chrono::seconds(30)));

  // A budget that allows no disruption: 429, reported as an answer.
  nlohmann::json pdb = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "guard"}}},
      {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "guarded"}}}}}}}};
  ASSERT_TRUE(admin->Create(PodDisruptionBudgets(), ns, pdb.dump()).ok());
  ASSERT_TRUE(WaitFor(
      [&] {
        auto b = admin->Get(PodDisruptionBudgets(), ns, "guard");
        return b.ok() && JsonField(b->json, "status.observedGeneration") == "1" &&
               JsonField(b->json, "status.currentHealthy") == "1";
      },
      std::chrono::seconds(30)))
      << "the disruption controller never observed the budget";
  auto blocked = admin->Evict(ns, "guarded", "");
  ASSERT_TRUE(blocked.ok()) << blocked.error().Describe();
  EXPECT_EQ(*blocked, EvictionOutcome::kBlockedByDisruptionBudget);
  EXPECT_EQ(Phase(*admin, ns, "guarded"), "Running");

  // Evicting a pod that does not exist is NotFound, an error.
  EXPECT_TRUE(admin->Evict(ns, "missing", "").Is(kubeclient::ApiReason::kNotFound));
  ASSERT_TRUE(admin->Delete(Nodes(), "", node).ok());
}

}  // namespace
}  // namespace quotient::k8s_integration
