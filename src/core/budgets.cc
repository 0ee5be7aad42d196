// PodDisruptionBudgets in the snapshot: which pods each covers. Pods are sorted by "ns/name", so
// a budget looks only at its own namespace's run of pods.
#include <algorithm>

#include "core/build_steps.h"
#include "core/label_selectors.h"

namespace quotient::core::build {

std::vector<DisruptionBudget> BuildBudgets(const std::vector<PodDisruptionBudgetObject>& objects,
                                           std::vector<Pod>& pods, Reporter& reporter) {
  std::vector<const PodDisruptionBudgetObject*> sorted;
  for (const PodDisruptionBudgetObject& o : objects) sorted.push_back(&o);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->meta.Key() < b->meta.Key(); });
  std::vector<DisruptionBudget> budgets;
  for (const PodDisruptionBudgetObject* o : sorted) {
    for (const std::string& problem : o->problems) {
      reporter.Warn(o->meta, "PodDisruptionBudget", "", problem);
    }
    DisruptionBudget budget;
    budget.key = o->meta.Key();
    budget.disruptions_allowed = std::max(0, o->disruptions_allowed);
    const Index index = static_cast<Index>(budgets.size());
    if (o->selector) {
      const std::string prefix = o->meta.namespace_name + "/";
      auto it = std::lower_bound(pods.begin(), pods.end(), prefix,
                                 [](const Pod& p, const std::string& k) { return p.key < k; });
      for (; it != pods.end() && it->key.compare(0, prefix.size(), prefix) == 0; ++it) {
        if (!MatchesSelector(*o->selector, it->meta.labels)) continue;
        budget.pods.push_back(static_cast<Index>(it - pods.begin()));
        it->budgets.push_back(index);
      }
    }
    budgets.push_back(std::move(budget));
  }
  return budgets;
}

}  // namespace quotient::core::build
