// Decision: what a cycle asks of the cluster — bind a pod, evict a pod, or pipeline a pod onto a
// node whose resources are still being released.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace quotient::framework {

enum class DecisionKind { kBind, kEvict, kPipeline };
std::string_view DecisionKindName(DecisionKind kind);  // "bind", "evict", "pipeline"

struct Decision {
  std::string action;  // the action that made it: allocate, reclaim, ...
  DecisionKind kind = DecisionKind::kBind;
  std::string pod;   // ns/name
  std::string node;  // target node (bind, pipeline) or the node the pod leaves (evict)
  std::vector<std::string> gpu_groups;  // shared GPU groups the pod gets, if any
  std::string reason;                   // evict: why
};

}  // namespace quotient::framework
