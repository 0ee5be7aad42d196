#include "core/shard.h"

#include <set>

#include "core/snapshot_builder.h"

namespace quotient::core {

bool InShard(const Labels& labels, const PodShard& shard) {
  const auto label = labels.find(shard.label_key);
  return label == labels.end() ? shard.value.empty() : label->second == shard.value;
}

ClusterObjects ObjectsOfShard(ClusterObjects objects, const PodShard& shard) {
  ClusterObjects out;
  std::set<std::string> nodes;
  std::set<std::string> groups;  // ns/name
  for (NodeObject& n : objects.nodes) {
    if (!InShard(n.meta.labels, shard)) continue;
    nodes.insert(n.meta.name);
    out.nodes.push_back(std::move(n));
  }
  for (QueueObject& q : objects.queues) {
    if (InShard(q.meta.labels, shard)) out.queues.push_back(std::move(q));
  }
  for (PodGroupObject& g : objects.pod_groups) {
    if (!InShard(g.meta.labels, shard)) continue;
    groups.insert(g.meta.Key());
    out.pod_groups.push_back(std::move(g));
  }
  for (PodObject& p : objects.pods) {
    bool in = false;
    if (!p.node_name.empty()) {
      in = nodes.count(p.node_name) > 0;
    } else if (auto it = p.meta.annotations.find(std::string(kPodGroupNameAnnotation));
               it != p.meta.annotations.end() && !it->second.empty()) {
      in = groups.count(p.meta.namespace_name + "/" + it->second) > 0;
    } else {
      in = InShard(p.meta.labels, shard);
    }
    if (in) out.pods.push_back(std::move(p));
  }
  out.priority_classes = std::move(objects.priority_classes);
  out.pod_disruption_budgets = std::move(objects.pod_disruption_budgets);
  return out;
}

}  // namespace quotient::core
