#include "scheduler/world.h"

#include <algorithm>
#include <map>

namespace quotient::scheduler {

void ResetAsRecreated(core::PodObject& pod) {
  pod.node_name.clear();
  pod.phase = core::PodPhase::kPending;
  pod.meta.deleting = false;
  pod.meta.deletion_time.reset();
  // A new pod has no GPU group until the binder assigns one.
  for (auto it = pod.meta.labels.begin(); it != pod.meta.labels.end();) {
    const bool gpu_group =
        it->first == "runai-gpu-group" || it->first.rfind("runai-gpu-group/", 0) == 0;
    it = gpu_group ? pod.meta.labels.erase(it) : std::next(it);
  }
}

void ApplyBind(core::PodObject& pod, const Decision& d) {
  pod.node_name = d.node;
  pod.phase = core::PodPhase::kRunning;
  if (d.gpu_groups.size() == 1) {
    pod.meta.labels["runai-gpu-group"] = d.gpu_groups.front();
  } else {
    for (const std::string& g : d.gpu_groups) pod.meta.labels["runai-gpu-group/" + g] = g;
  }
}

void AdvanceWorld(core::ClusterObjects& objects, const std::vector<Decision>& decisions,
                  bool delete_evicted) {
  std::map<std::string, const Decision*> bind_of;
  std::map<std::string, const Decision*> evict_of;
  for (const Decision& d : decisions) {
    if (d.kind == DecisionKind::kBind) bind_of[d.pod] = &d;
    if (d.kind == DecisionKind::kEvict) evict_of[d.pod] = &d;
  }
  std::vector<core::PodObject> next;
  next.reserve(objects.pods.size());
  for (core::PodObject& pod : objects.pods) {
    const std::string key = pod.meta.Key();
    if (evict_of.count(key)) {
      if (delete_evicted) continue;
      ResetAsRecreated(pod);
      next.push_back(std::move(pod));
      continue;
    }
    if (auto it = bind_of.find(key); it != bind_of.end()) ApplyBind(pod, *it->second);
    next.push_back(std::move(pod));
  }
  objects.pods = std::move(next);
}

void ApplyAnnotations(core::ClusterObjects& objects,
                      const std::vector<framework::Session::AnnotationUpdate>& updates) {
  for (const framework::Session::AnnotationUpdate& u : updates) {
    for (core::PodGroupObject& pg : objects.pod_groups) {
      if (pg.meta.Key() != u.pod_group) continue;
      if (u.value) {
        pg.meta.annotations[u.key] = *u.value;
      } else {
        pg.meta.annotations.erase(u.key);
      }
    }
  }
}

}  // namespace quotient::scheduler
