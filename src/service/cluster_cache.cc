#include "service/cluster_cache.h"

#include "service/object_decoders.h"

namespace quotient::service {
namespace {

kubeclient::ReflectorOptions For(kubeclient::Resource resource) {
  kubeclient::ReflectorOptions options;
  options.resource = std::move(resource);
  return options;
}

kubeclient::Resource PriorityClasses() {
  return {"scheduling.k8s.io", "v1", "priorityclasses", false};
}

template <typename T>
std::vector<T> Values(const kubeclient::Informer<T>& informer) {
  std::vector<T> out;
  for (const auto& cached : informer.indexer().List()) out.push_back(cached->value);
  return out;
}

}  // namespace

ClusterCache::ClusterCache(kubeclient::Client& client)
    : nodes_(client, For(kubeclient::resources::Nodes()), DecodeNodeObject),
      pods_(client, For(kubeclient::resources::Pods()), DecodePodObject),
      queues_(client, For(kubeclient::resources::Queues()), DecodeQueueObject),
      pod_groups_(client, For(kubeclient::resources::PodGroups()), DecodePodGroupObject),
      priority_classes_(client, For(PriorityClasses()), DecodePriorityClassObject) {
  Watch(nodes_);
  Watch(queues_);
  Watch(pod_groups_);
  Watch(priority_classes_);
  // Pods also settle the overlay: once a pod's own state shows a node (or the pod is gone),
  // the assumption has served its purpose.
  pods_.AddHandlers({[this](const auto& pod) {
                       {
                         std::lock_guard lock(mu_);
                         if (!pod->value.node_name.empty()) assumed_.erase(pod->key);
                       }
                       if (notify_) notify_();
                     },
                     [this](const auto&, const auto& pod) {
                       {
                         std::lock_guard lock(mu_);
                         if (!pod->value.node_name.empty()) assumed_.erase(pod->key);
                       }
                       if (notify_) notify_();
                     },
                     [this](const auto& pod) {
                       {
                         std::lock_guard lock(mu_);
                         assumed_.erase(pod->key);
                       }
                       if (notify_) notify_();
                     }});
}

template <typename T>
void ClusterCache::Watch(kubeclient::Informer<T>& informer) {
  auto changed = [this](const auto&...) {
    if (notify_) notify_();
  };
  informer.AddHandlers({changed, changed, changed});
}

void ClusterCache::OnChange(std::function<void()> notify) { notify_ = std::move(notify); }

void ClusterCache::Start() {
  nodes_.Start();
  pods_.Start();
  queues_.Start();
  pod_groups_.Start();
  priority_classes_.Start();
}

void ClusterCache::Stop() {
  nodes_.Stop();
  pods_.Stop();
  queues_.Stop();
  pod_groups_.Stop();
  priority_classes_.Stop();
}

bool ClusterCache::WaitForSync(std::chrono::milliseconds timeout) {
  return nodes_.WaitForSync(timeout) && pods_.WaitForSync(timeout) &&
         queues_.WaitForSync(timeout) && pod_groups_.WaitForSync(timeout) &&
         priority_classes_.WaitForSync(timeout);
}

core::ClusterObjects ClusterCache::Objects() const {
  core::ClusterObjects objects;
  objects.nodes = Values(nodes_);
  objects.pods = Values(pods_);
  objects.queues = Values(queues_);
  objects.pod_groups = Values(pod_groups_);
  objects.priority_classes = Values(priority_classes_);
  std::lock_guard lock(mu_);
  if (!assumed_.empty()) {
    for (core::PodObject& pod : objects.pods) {
      auto it = assumed_.find(pod.meta.Key());
      if (it != assumed_.end() && pod.node_name.empty()) pod.node_name = it->second;
    }
  }
  return objects;
}

void ClusterCache::AssumeBound(const std::string& pod, const std::string& node) {
  std::lock_guard lock(mu_);
  assumed_[pod] = node;
}

void ClusterCache::ForgetAssumed(const std::string& pod) {
  std::lock_guard lock(mu_);
  assumed_.erase(pod);
}

size_t ClusterCache::AssumedCount() const {
  std::lock_guard lock(mu_);
  return assumed_.size();
}

std::string ClusterCache::PodUid(const std::string& pod) const {
  auto cached = pods_.indexer().Get(pod);
  return cached ? cached->uid : "";
}

std::vector<std::string> ClusterCache::DecodeErrors() const {
  std::vector<std::string> out;
  auto add = [&](const std::vector<std::string>& errors) {
    out.insert(out.end(), errors.begin(), errors.end());
  };
  add(nodes_.DecodeErrors());
  add(pods_.DecodeErrors());
  add(queues_.DecodeErrors());
  add(pod_groups_.DecodeErrors());
  add(priority_classes_.DecodeErrors());
  return out;
}

}  // namespace quotient::service
