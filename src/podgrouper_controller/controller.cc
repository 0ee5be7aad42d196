#include "podgrouper_controller/controller.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "kube/value.h"
#include "podgrouper/groupers.h"
#include "podgrouper/pod_group_codec.h"

namespace quotient::podgrouper_controller {

using podgrouper::Grouping;
using podgrouper::Object;
using podgrouper::PodGroupSpec;

namespace {

constexpr char kPodGroupAnnotation[] = "pod-group-name";
constexpr char kSubGroupLabel[] = "kai.scheduler/subgroup-name";

kubeclient::Resource PriorityClasses() {
  return {"scheduling.k8s.io", "v1", "priorityclasses", false};
}

// Objects of a known kind (list items come without apiVersion and kind).
kubeclient::Informer<Object>::Decoder DecoderOf(std::string api_version, std::string kind) {
  return [api_version, kind](const kubeclient::RawObject& raw) -> Result<Object> {
    Result<kube::Value> doc = kube::ParseJson(raw.json);
    if (!doc.ok()) return Result<Object>::Error(raw.Key() + ": " + doc.message());
    Result<Object> object = podgrouper::ObjectFromValue(std::move(doc).value(), api_version, kind);
    if (!object.ok()) return Result<Object>::Error(raw.Key() + ": " + object.message());
    return object;
  };
}

kubeclient::ReflectorOptions Watching(kubeclient::Resource resource, std::string field_selector) {
  kubeclient::ReflectorOptions o;
  o.resource = std::move(resource);
  o.field_selector = std::move(field_selector);
  return o;
}

nlohmann::json SubGroupsJson(const PodGroupSpec& pg) {
  nlohmann::json subs = nlohmann::json::array();
  for (const podgrouper::SubGroupSpec& s : pg.sub_groups) {
    nlohmann::json sub = {{"name", s.name}, {"minMember", s.min_member}};
    if (!s.parent.empty()) sub["parent"] = s.parent;
    subs.push_back(std::move(sub));
  }
  return subs;
}

std::string PodGroupJson(const PodGroupSpec& pg) {
  nlohmann::json owner = {{"apiVersion", pg.owner.api_version},
                          {"kind", pg.owner.kind},
                          {"name", pg.owner.name},
                          {"uid", pg.owner.uid},
                          {"controller", true},
                          {"blockOwnerDeletion", false}};
  nlohmann::json spec = {{"minMember", pg.min_member}, {"queue", pg.queue}};
  if (!pg.priority_class_name.empty()) spec["priorityClassName"] = pg.priority_class_name;
  if (!pg.preemptibility.empty()) spec["preemptibility"] = pg.preemptibility;
  if (!pg.sub_groups.empty()) spec["subGroups"] = SubGroupsJson(pg);
  nlohmann::json doc = {{"apiVersion", "scheduling.run.ai/v2alpha2"},
                        {"kind", "PodGroup"},
                        {"metadata",
                         {{"name", pg.name},
                          {"namespace", pg.namespace_name},
                          {"labels", pg.labels},
                          {"annotations", pg.annotations},
                          {"ownerReferences", nlohmann::json::array({owner})}}},
                        {"spec", spec}};
  return doc.dump();
}

std::string Joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

}  // namespace

// The groupers' view of the cluster: the informers' caches, owners read on demand.
class PodGrouperController::View : public podgrouper::ClusterView {
 public:
  explicit View(PodGrouperController& c) : c_(c) {}
  const Object* Find(const std::string& api_version, const std::string& kind,
                     const std::string& namespace_name, const std::string& name) const override {
    auto found = c_.owners_.Get(api_version, kind, namespace_name, name);
    if (!found.ok() || !found.value()) return nullptr;
    // Kept for the rest of this reconcile: the groupers hold the pointer.
    std::lock_guard lock(mu_);
    looked_up_.push_back(std::make_unique<Object>(std::move(*found.value())));
    return looked_up_.back().get();
  }
  std::vector<const Object*> PodsWithLabels(const std::string& namespace_name,
                                            const podgrouper::Labels& selector) const override {
    std::vector<const Object*> out;
    std::lock_guard lock(mu_);
    pods_.clear();
    for (const auto& pod : c_.pods_.indexer().List()) {
      if (pod->namespace_name != namespace_name) continue;
      const bool matches = std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
        auto it = pod->labels.find(kv.first);
        return it != pod->labels.end() && it->second == kv.second;
      });
      if (matches) pods_.push_back(pod);
    }
    std::sort(pods_.begin(), pods_.end(),
              [](const auto& a, const auto& b) { return a->name < b->name; });
    for (const auto& pod : pods_) out.push_back(&pod->value);
    return out;
  }
  const PodGroupSpec* ExistingPodGroup(const std::string& namespace_name,
                                       const std::string& name) const override {
    auto pg = c_.pod_groups_.indexer().Get(namespace_name + "/" + name);
    if (pg == nullptr) return nullptr;
    std::lock_guard lock(mu_);
    groups_.push_back(pg);
    return &pg->value;
  }
  bool PriorityClassExists(const std::string& name) const override {
    return c_.priority_classes_.indexer().Get(name) != nullptr;
  }
  void Forget() const {
    std::lock_guard lock(mu_);
    looked_up_.clear();
    groups_.clear();
    pods_.clear();
  }

 private:
  PodGrouperController& c_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Object>> looked_up_;
  mutable std::vector<kubeclient::Informer<Object>::ObjectPtr> pods_;
  mutable std::vector<kubeclient::Informer<PodGroupSpec>::ObjectPtr> groups_;
};

PodGrouperController::PodGrouperController(kubeclient::Client& client, ControllerOptions options)
    : client_(client),
      options_(std::move(options)),
      owners_(client, options_.owner_ttl),
      pods_(
          client,
          Watching(kubeclient::resources::Pods(), "spec.schedulerName=" + options_.scheduler_name),
          DecoderOf("v1", "Pod")),
      pod_groups_(client, Watching(kubeclient::resources::PodGroups(), ""),
                  [](const kubeclient::RawObject& raw) -> Result<PodGroupSpec> {
                    Result<Object> o = DecoderOf("scheduling.run.ai/v2alpha2", "PodGroup")(raw);
                    if (!o.ok()) return Result<PodGroupSpec>::Error(o.message());
                    return podgrouper::PodGroupSpecFromObject(o.value());
                  }),
      priority_classes_(client, Watching(PriorityClasses(), ""),
                        [](const kubeclient::RawObject&) -> Result<bool> { return true; }),
      queue_(kubeclient::RealClock::Instance()),
      events_(client, "quotient-podgrouper", "quotient-podgrouper"),
      view_(std::make_unique<View>(*this)) {
  pods_.AddHandlers({[this](const auto& pod) { queue_.Add(pod->key); },
                     [this](const auto&, const auto& pod) { queue_.Add(pod->key); },
                     [this](const auto& pod) {
                       std::lock_guard lock(mu_);
                       warned_.erase(pod->key);
                     }});
}

PodGrouperController::~PodGrouperController() {
  queue_.ShutDown();
  pods_.Stop();
  pod_groups_.Stop();
  priority_classes_.Stop();
}

ControllerStats PodGrouperController::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void PodGrouperController::Run(std::stop_token stop) {
  const auto log_decode_error = [](const std::string& what) {
    spdlog::warn("cannot read {}", what);
  };
  pods_.OnDecodeError(log_decode_error);
  pod_groups_.OnDecodeError(log_decode_error);
  events_.Start();
  pods_.Start();
  pod_groups_.Start();
  priority_classes_.Start();
  while (!stop.stop_requested() && !(pods_.WaitForSync(std::chrono::milliseconds(100)) &&
                                     pod_groups_.HasSynced() && priority_classes_.HasSynced())) {
  }
  ready_ = true;
  // One worker: reconciles are a few requests each, and one worker never races another over the
  // same PodGroup (pods of one workload share it).
  std::jthread worker([this] { Worker(); });
  auto next_resync = std::chrono::steady_clock::now() + options_.resync;
  while (!stop.stop_requested()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (std::chrono::steady_clock::now() < next_resync) continue;
    for (const std::string& key : pods_.indexer().ListKeys()) queue_.Add(key);
    next_resync = std::chrono::steady_clock::now() + options_.resync;
  }
  queue_.ShutDown();
  worker.join();
  events_.Flush();
}

void PodGrouperController::Worker() {
  while (std::optional<std::string> key = queue_.Get()) {
    const Status s = Reconcile(*key);
    {
      std::lock_guard lock(mu_);
      ++stats_.reconciles;
      if (!s.ok()) {
        ++stats_.failures;
        stats_.last_error = s.message();
      }
    }
    if (s.ok()) {
      queue_.Forget(*key);
    } else {
      spdlog::warn("pod {}: {}", *key, s.message());
      queue_.AddRateLimited(*key);
    }
    queue_.Done(*key);
  }
}

Status PodGrouperController::Reconcile(const std::string& key) {
  const auto cached = pods_.indexer().Get(key);
  if (cached == nullptr) return Status::Ok();
  const Object& pod = cached->value;
  // The owner chain, top last; an owner that cannot be read (kind not served, object gone, a
  // different object of the same name) ends it.
  std::vector<Object> owners;
  std::vector<std::string> unreadable;
  const Object* below = &pod;
  for (int depth = 0; depth < 16; ++depth) {
    const podgrouper::OwnerReference* ref = below->ControllerOwner();
    if (ref == nullptr) break;
    auto owner = owners_.Get(ref->api_version, ref->kind, pod.namespace_name, ref->name);
    if (!owner.ok() && owner.error().reason == kubeclient::ApiReason::kForbidden) {
      // Not ours to read (RBAC): grouped by what is below, and said so.
      unreadable.push_back(pod.Describe() + ": cannot read its owner " + ref->kind + " " +
                           ref->name + " (" + owner.error().Describe() + "); grouped without it");
      break;
    }
    if (!owner.ok()) {
      return Status::Error("reading owner " + ref->kind + " " + ref->name + ": " +
                           owner.error().Describe());
    }
    if (!owner.value() || owner.value()->uid != ref->uid) break;
    owners.push_back(std::move(*owner.value()));
    below = &owners.back();
  }
  Grouping grouping = podgrouper::GroupPod(pod, owners, *view_, options_.settings);
  grouping.warnings.insert(grouping.warnings.begin(), unreadable.begin(), unreadable.end());
  spdlog::debug("pod {}: {} owner(s), PodGroup {} (minMember {}, {} subgroup(s)), subgroup \"{}\"",
                key, owners.size(), grouping.pod_group.name, grouping.pod_group.min_member,
                grouping.pod_group.sub_groups.size(), grouping.pod_sub_group);
  view_->Forget();
  ReportWarnings(pod, grouping);
  if (Status s = EnsurePodGroup(grouping.pod_group); !s.ok()) return s;
  return LabelPod(pod, grouping);
}

Status PodGrouperController::EnsurePodGroup(const PodGroupSpec& wanted) {
  const auto existing = pod_groups_.indexer().Get(wanted.namespace_name + "/" + wanted.name);
  if (existing == nullptr) {
    auto created = client_.Create(kubeclient::resources::PodGroups(), wanted.namespace_name,
                                  PodGroupJson(wanted));
    if (!created.ok() && created.error().reason != kubeclient::ApiReason::kAlreadyExists) {
      return Status::Error("creating PodGroup " + wanted.name + ": " + created.error().Describe());
    }
    std::lock_guard lock(mu_);
    if (created.ok()) ++stats_.pod_groups_created;
    return Status::Ok();
  }
  const PodGroupSpec& have = existing->value;
  if (have.min_member == wanted.min_member && have.sub_groups == wanted.sub_groups) {
    return Status::Ok();
  }
  // The gang's size follows the workload's (elastic jobs scale); the queue never moves.
  nlohmann::json spec = {{"minMember", wanted.min_member}};
  spec["subGroups"] = wanted.sub_groups.empty() ? nlohmann::json(nullptr) : SubGroupsJson(wanted);
  auto patched =
      client_.Patch(kubeclient::resources::PodGroups(), wanted.namespace_name, wanted.name,
                    kubeclient::PatchType::kMerge, nlohmann::json{{"spec", spec}}.dump());
  if (!patched.ok()) {
    return Status::Error("updating PodGroup " + wanted.name + ": " + patched.error().Describe());
  }
  std::lock_guard lock(mu_);
  ++stats_.pod_groups_updated;
  return Status::Ok();
}

Status PodGrouperController::LabelPod(const Object& pod, const Grouping& grouping) {
  const auto annotation = pod.annotations.find(kPodGroupAnnotation);
  const auto label = pod.labels.find(kSubGroupLabel);
  const bool annotated =
      annotation != pod.annotations.end() && annotation->second == grouping.pod_group.name;
  const bool labelled = grouping.pod_sub_group.empty()
                            ? label == pod.labels.end()
                            : label != pod.labels.end() && label->second == grouping.pod_sub_group;
  if (annotated && labelled) return Status::Ok();
  nlohmann::json meta = {{"annotations", {{kPodGroupAnnotation, grouping.pod_group.name}}}};
  meta["labels"][kSubGroupLabel] = grouping.pod_sub_group.empty()
                                       ? nlohmann::json(nullptr)
                                       : nlohmann::json(grouping.pod_sub_group);
  auto patched =
      client_.Patch(kubeclient::resources::Pods(), pod.namespace_name, pod.name,
                    kubeclient::PatchType::kMerge, nlohmann::json{{"metadata", meta}}.dump());
  if (!patched.ok() && patched.error().reason != kubeclient::ApiReason::kNotFound) {
    return Status::Error("labelling the pod: " + patched.error().Describe());
  }
  std::lock_guard lock(mu_);
  ++stats_.pods_labelled;
  return Status::Ok();
}

void PodGrouperController::ReportWarnings(const Object& pod, const Grouping& grouping) {
  const std::string key = pod.namespace_name + "/" + pod.name;
  const std::string text = Joined(grouping.warnings);
  {
    std::lock_guard lock(mu_);
    std::string& last = warned_[key];
    if (last == text) return;
    last = text;
    stats_.warnings += static_cast<int64_t>(grouping.warnings.size());
  }
  for (const std::string& warning : grouping.warnings) {
    kubeclient::EventRecord event;
    event.regarding = {"v1", "Pod", pod.namespace_name, pod.name, pod.uid};
    event.type = "Warning";
    event.reason = "PodGrouperWarning";
    event.action = "Grouping";
    event.note = warning;
    events_.Record(std::move(event));
    spdlog::warn("pod {}: {}", key, warning);
  }
}

}  // namespace quotient::podgrouper_controller
