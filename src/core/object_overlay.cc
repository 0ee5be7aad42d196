#include "core/object_overlay.h"

#include <map>
#include <string>
#include <utility>

namespace quotient::core {
namespace {

template <typename Object>
void Overlay(std::vector<Object>& base, std::vector<Object>& changes) {
  std::map<std::string, size_t> at;
  for (size_t i = 0; i < base.size(); ++i) at.emplace(base[i].meta.Key(), i);
  for (Object& change : changes) {
    const auto existing = at.find(change.meta.Key());
    if (existing != at.end()) {
      base[existing->second] = std::move(change);
    } else {
      at.emplace(change.meta.Key(), base.size());
      base.push_back(std::move(change));
    }
  }
}

}  // namespace

ClusterObjects OverlayObjects(ClusterObjects base, ClusterObjects changes) {
  Overlay(base.nodes, changes.nodes);
  Overlay(base.pods, changes.pods);
  Overlay(base.queues, changes.queues);
  Overlay(base.pod_groups, changes.pod_groups);
  Overlay(base.priority_classes, changes.priority_classes);
  Overlay(base.pod_disruption_budgets, changes.pod_disruption_budgets);
  return base;
}

}  // namespace quotient::core
