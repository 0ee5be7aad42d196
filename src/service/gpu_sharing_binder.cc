#include "service/gpu_sharing_binder.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/gpu_sharing.h"
#include "core/snapshot_builder.h"

namespace quotient::service {

namespace {

using kubeclient::ApiReason;
using kubeclient::resources::ConfigMaps;
using kubeclient::resources::Pods;
using nlohmann::json;

constexpr int64_t kMiB = 1 << 20;

// FNV-1a: the reservation pod's name must be the same for the same group in every process.
uint64_t Fnv1a(const std::string& text) {
  uint64_t hash = 1469598103934665603ULL;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ULL;
  }
  return hash;
}

std::string GroupLabelSelector(const std::string& group) {
  return std::string(core::kGpuGroupLabel) + "=" + group;
}

// The pod's GPU group labels: one device, `runai-gpu-group`; several, one label per group.
json GroupLabels(const std::vector<std::string>& groups, bool remove) {
  json labels = json::object();
  const std::string key(core::kGpuGroupLabel);
  if (groups.size() == 1) {
    labels[key] = remove ? json(nullptr) : json(groups.front());
  } else {
    for (const std::string& g : groups) labels[key + "/" + g] = remove ? json(nullptr) : json(g);
  }
  return labels;
}

// The index of the container that receives the GPU: the named one, else the first.
Result<size_t> GpuContainerIndex(const core::PodObject& pod, const std::string& name) {
  if (name.empty()) return size_t{0};
  for (size_t i = 0; i < pod.containers.size(); ++i) {
    if (pod.containers[i].name == name) return i;
  }
  return Result<size_t>::Error("annotation gpu-fraction-container-name: no container named \"" +
                               name + "\"");
}

// A reservation pod holds no work: it goes at once, so a new one of the same name can follow.
kubeclient::DeleteOptions Now() {
  kubeclient::DeleteOptions options;
  options.grace_period_seconds = 0;
  return options;
}

}  // namespace

GpuSharingBinder::GpuSharingBinder(kubeclient::Client& client, GpuSharingOptions options)
    : client_(client), options_(std::move(options)) {}

std::string GpuSharingBinder::ReservationName(const std::string& node, const std::string& group) {
  constexpr char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";  // as Kubernetes' name suffixes
  uint64_t hash = Fnv1a(node + "/" + group);
  std::string suffix;
  for (int i = 0; i < 5; ++i) {
    suffix += kAlphabet[hash % (sizeof(kAlphabet) - 1)];
    hash /= sizeof(kAlphabet) - 1;
  }
  // A pod name is a DNS subdomain (253), but its hostname label must fit 63: keep it short.
  std::string base = "gpu-reservation-" + node;
  if (base.size() > 56) base.resize(56);
  while (!base.empty() && (base.back() == '-' || base.back() == '.')) base.pop_back();
  return base + "-" + suffix;
}

std::string GpuSharingBinder::PortionText(int64_t portion_milli) {
  // Hundredths, rounded up as KAI's "%.2f" of a portion that is itself a whole hundredth.
  const int64_t hundredths = (portion_milli + 9) / 10;
  return fmt::format("{}.{:02}", hundredths / 100, hundredths % 100);
}

std::string GpuSharingBinder::ReservationJson(const std::string& name, const std::string& node,
                                              const std::string& group) const {
  json container = {
      {"name", "gpu-reservation"},
      {"image", options_.reservation_image},
      {"args", {"gpu-reservation"}},
      {"env",
       {{{"name", "POD_NAME"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
        {{"name", "POD_NAMESPACE"},
         {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}}}},
      {"resources",
       {{"limits", {{"nvidia.com/gpu", "1"}, {"cpu", "50m"}, {"memory", "64Mi"}}},
        {"requests", {{"nvidia.com/gpu", "1"}, {"cpu", "1m"}, {"memory", "16Mi"}}}}},
      {"securityContext",
       {{"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", {"ALL"}}}}}}};
  json spec = {{"nodeName", node},
               {"restartPolicy", "Always"},
               {"terminationGracePeriodSeconds", 5},
               // It must stay wherever its fractional pods run, taints or not.
               {"tolerations", {{{"operator", "Exists"}}}},
               {"containers", {container}}};
  if (!options_.reservation_service_account.empty()) {
    spec["serviceAccountName"] = options_.reservation_service_account;
  }
  if (!options_.runtime_class.empty()) spec["runtimeClassName"] = options_.runtime_class;
  return json{{"apiVersion", "v1"},
              {"kind", "Pod"},
              {"metadata",
               {{"name", name},
                {"namespace", options_.reservation_namespace},
                {"labels", {{"app", kReservationAppLabel}, {core::kGpuGroupLabel, group}}},
                {"annotations", {{"karpenter.sh/do-not-disrupt", "true"}}}}},
              {"spec", spec}}
      .dump();
}

Result<GpuSharingBinder::Reservation> GpuSharingBinder::EnsureReservation(
    const std::string& node, const std::string& group) {
  using R = Result<Reservation>;
  Reservation reservation;
  kubeclient::ListOptions list;
  list.label_selector = GroupLabelSelector(group);
  auto found = client_.List(Pods(), options_.reservation_namespace, list);
  if (!found.ok()) return R::Error("listing reservation pods: " + found.error().Describe());
  for (const kubeclient::RawObject& pod : found->items) {
    if (pod.deleting) continue;
    const json object = json::parse(pod.json, nullptr, false);
    const std::string on = object.value("spec", json::object()).value("nodeName", "");
    if (on != node) {
      return R::Error("GPU group " + group + " is reserved on node " + on + ", not " + node);
    }
    reservation.name = pod.name;
    break;
  }
  if (reservation.name.empty()) {
    reservation.name = ReservationName(node, group);
    auto created = client_.Create(Pods(), options_.reservation_namespace,
                                  ReservationJson(reservation.name, node, group));
    if (created.ok()) {
      reservation.created = true;
      spdlog::info("created GPU reservation pod {}/{} for group {} on {}",
                   options_.reservation_namespace, reservation.name, group, node);
    } else if (!created.Is(ApiReason::kAlreadyExists)) {
      return R::Error("creating reservation pod " + reservation.name + ": " +
                      created.error().Describe());
    }
  }
  Result<std::string> uuid = WaitForGpu(reservation.name);
  if (!uuid.ok()) {
    if (reservation.created) {
      // Ours, and it never got a GPU: removed now rather than left to the collector.
      (void)client_.Delete(Pods(), options_.reservation_namespace, reservation.name, Now());
    }
    return R::Error(uuid.message());
  }
  reservation.uuid = uuid.value();
  return reservation;
}

Result<std::string> GpuSharingBinder::WaitForGpu(const std::string& name) {
  using R = Result<std::string>;
  const auto deadline = std::chrono::steady_clock::now() + options_.allocation_timeout;
  std::string last = "not seen yet";
  for (;;) {
    auto pod = client_.Get(Pods(), options_.reservation_namespace, name);
    if (pod.ok()) {
      const json object = json::parse(pod->json, nullptr, false);
      const json meta = object.value("metadata", json::object());
      const std::string uuid =
          meta.value("annotations", json::object()).value(kReservationGpuAnnotation, "");
      if (!uuid.empty()) return uuid;
      const std::string phase = object.value("status", json::object()).value("phase", "Pending");
      if (phase == "Failed" || phase == "Succeeded") {
        return R::Error("reservation pod " + name + " ended (" + phase +
                        ") without publishing its GPU");
      }
      last = "phase " + phase;
    } else {
      last = pod.error().Describe();
    }
    if (std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(options_.poll_interval);
  }
  return R::Error(fmt::format(
      "reservation pod {}/{} published no GPU UUID ({}) within {} s: is the NVIDIA device plugin "
      "serving nvidia.com/gpu on the node, and can the pod pull its image?",
      options_.reservation_namespace, name, last, options_.allocation_timeout.count() / 1000));
}

Result<PreparedSharing> GpuSharingBinder::Prepare(const SharedGpuBind& bind) {
  using R = Result<PreparedSharing>;
  const core::PodObject& pod = bind.pod;
  const std::string who = "pod " + pod.meta.Key();
  auto annotation = pod.meta.annotations.find(kSharedGpuConfigMapAnnotation);
  if (annotation == pod.meta.annotations.end() || annotation->second.empty()) {
    return R::Error(who +
                    " shares a GPU but has no runai/shared-gpu-configmap annotation: the Quotient "
                    "admission webhook did not see it, and it would run without its GPU wiring "
                    "and memory limit; recreate it once `quotient webhook` is serving");
  }
  core::ResourceVector requested;
  for (const core::ContainerResources& c : pod.containers) requested += c.requests;
  Result<core::GpuSharing> sharing = core::ReadGpuSharing(pod, requested);
  if (!sharing.ok()) return R::Error(who + ": " + sharing.message());
  Result<size_t> container = GpuContainerIndex(pod, sharing->container_name);
  if (!container.ok()) return R::Error(who + ": " + container.message());

  PreparedSharing prepared;
  prepared.namespace_name = pod.meta.namespace_name;
  prepared.pod = pod.meta.name;
  prepared.groups = bind.groups;
  {
    std::lock_guard lock(mu_);
    for (const std::string& g : bind.groups) ++in_flight_[g];
  }
  auto fail = [&](const std::string& why) {
    Undo(prepared);
    return R::Error(who + ": " + why);
  };

  std::vector<std::string> uuids;
  for (const std::string& group : bind.groups) {
    Result<Reservation> reservation = EnsureReservation(bind.node, group);
    if (!reservation.ok()) return fail(reservation.message());
    if (reservation->created) prepared.created_reservations.push_back(reservation->name);
    uuids.push_back(reservation->uuid);
  }

  const json labels = {{"metadata", {{"labels", GroupLabels(bind.groups, false)}}}};
  auto labelled = client_.Patch(Pods(), pod.meta.namespace_name, pod.meta.name,
                                kubeclient::PatchType::kMerge, labels.dump());
  if (!labelled.ok()) return fail("labelling its GPU group: " + labelled.error().Describe());
  prepared.labelled = true;

  // The portion and the memory limit per device.
  int64_t portion_milli = 1000;
  std::string limit_bytes;
  if (sharing->kind == core::GpuSharing::Kind::kFraction) {
    portion_milli = sharing->portion_milli.value();
    if (bind.node_gpu_memory_mib) {
      limit_bytes = std::to_string(*bind.node_gpu_memory_mib * kMiB * portion_milli / 1000);
    }
  } else {
    limit_bytes = std::to_string(sharing->memory_mib.value() * kMiB);
    if (bind.node_gpu_memory_mib) {
      portion_milli =
          core::MemoryToPortionMilli(sharing->memory_mib, *bind.node_gpu_memory_mib).value();
    }
  }
  if (limit_bytes.empty()) {
    spdlog::warn("{}: node {} has no nvidia.com/gpu.memory label: its GPU memory is not limited",
                 who, bind.node);
  }
  std::string visible;
  for (const std::string& uuid : uuids) visible += (visible.empty() ? "" : ",") + uuid;
  const std::string portion = PortionText(portion_milli);
  const json data = {{"NVIDIA_VISIBLE_DEVICES", visible},
                     {"GPU_PORTION", portion},
                     {"RUNAI_NUM_OF_GPUS", portion},
                     {"QUOTIENT_GPU_MEMORY_LIMIT", limit_bytes}};
  const std::string name = annotation->second + "-" + std::to_string(*container);
  const json config_map = {{"apiVersion", "v1"},
                           {"kind", "ConfigMap"},
                           {"metadata",
                            {{"name", name},
                             {"namespace", pod.meta.namespace_name},
                             {"ownerReferences",
                              {{{"apiVersion", "v1"},
                                {"kind", "Pod"},
                                {"name", pod.meta.name},
                                {"uid", pod.meta.uid}}}}}},
                           {"data", data}};
  auto written = client_.Create(ConfigMaps(), pod.meta.namespace_name, config_map.dump());
  if (written.Is(ApiReason::kAlreadyExists)) {
    // An earlier bind of this pod that failed late: the data is rewritten for this one.
    written = client_.Patch(ConfigMaps(), pod.meta.namespace_name, name,
                            kubeclient::PatchType::kMerge, json{{"data", data}}.dump());
  }
  if (!written.ok()) return fail("writing ConfigMap " + name + ": " + written.error().Describe());
  prepared.config_map = name;
  return prepared;
}

void GpuSharingBinder::Release(const std::vector<std::string>& groups) {
  std::lock_guard lock(mu_);
  for (const std::string& g : groups) {
    auto it = in_flight_.find(g);
    if (it != in_flight_.end() && --it->second <= 0) in_flight_.erase(it);
  }
}

void GpuSharingBinder::Done(const PreparedSharing& prepared) { Release(prepared.groups); }

void GpuSharingBinder::Undo(const PreparedSharing& prepared) {
  const std::string who = prepared.namespace_name + "/" + prepared.pod;
  if (!prepared.config_map.empty()) {
    auto deleted = client_.Delete(ConfigMaps(), prepared.namespace_name, prepared.config_map);
    if (!deleted.ok() && !deleted.Is(ApiReason::kNotFound)) {
      spdlog::warn("undoing {}: ConfigMap {}: {}", who, prepared.config_map,
                   deleted.error().Describe());
    }
  }
  if (prepared.labelled) {
    const json labels = {{"metadata", {{"labels", GroupLabels(prepared.groups, true)}}}};
    auto patched = client_.Patch(Pods(), prepared.namespace_name, prepared.pod,
                                 kubeclient::PatchType::kMerge, labels.dump());
    if (!patched.ok() && !patched.Is(ApiReason::kNotFound)) {
      spdlog::warn("undoing {}: its GPU group label: {}", who, patched.error().Describe());
    }
  }
  Release(prepared.groups);
  for (const std::string& name : prepared.created_reservations) {
    // Another bind may have joined the group meanwhile: then the collector decides later.
    bool shared = false;
    {
      std::lock_guard lock(mu_);
      for (const std::string& g : prepared.groups) {
        if (in_flight_.count(g) != 0) shared = true;
      }
    }
    if (shared) continue;
    auto deleted = client_.Delete(Pods(), options_.reservation_namespace, name, Now());
    if (!deleted.ok() && !deleted.Is(ApiReason::kNotFound)) {
      spdlog::warn("undoing {}: reservation pod {}: {}", who, name, deleted.error().Describe());
    }
  }
}

CollectStats GpuSharingBinder::Collect(const std::vector<core::PodObject>& pods,
                                       std::chrono::steady_clock::time_point now) {
  CollectStats stats;
  const std::string group_key(core::kGpuGroupLabel);
  std::map<std::string, const core::PodObject*> reservations;  // group -> reservation pod
  std::set<std::string> held;                                  // groups with a live holder
  std::vector<const core::PodObject*> fractional;
  for (const core::PodObject& pod : pods) {
    if (pod.phase == core::PodPhase::kSucceeded || pod.phase == core::PodPhase::kFailed) continue;
    const bool reservation = pod.meta.namespace_name == options_.reservation_namespace;
    for (const auto& [key, value] : pod.meta.labels) {
      const bool group_label = key == group_key || key.rfind(group_key + "/", 0) == 0;
      if (!group_label || value.empty()) continue;
      if (reservation) {
        if (!pod.meta.deleting) reservations[value] = &pod;
      } else {
        held.insert(value);
      }
    }
    if (!reservation && pod.scheduler_name == options_.scheduler_name && !pod.node_name.empty() &&
        !pod.meta.deleting && pod.meta.annotations.count(kSharedGpuConfigMapAnnotation) != 0) {
      fractional.push_back(&pod);
    }
  }
  std::set<std::string> in_flight;
  {
    std::lock_guard lock(mu_);
    for (const auto& [group, count] : in_flight_) in_flight.insert(group);
  }

  std::map<std::string, std::chrono::steady_clock::time_point> unheld;
  for (const auto& [group, pod] : reservations) {
    if (held.count(group) != 0 || in_flight.count(group) != 0) continue;
    const std::string name = pod->meta.name;
    auto since = unheld_since_.find(name);
    const auto first = since == unheld_since_.end() ? now : since->second;
    unheld[name] = first;
    if (now - first < options_.collect_grace) continue;
    auto deleted = client_.Delete(Pods(), options_.reservation_namespace, name, Now());
    if (deleted.ok() || deleted.Is(ApiReason::kNotFound)) {
      ++stats.reservations_deleted;
      unheld.erase(name);
      spdlog::info("deleted GPU reservation pod {}/{}: no pod holds group {} any more",
                   options_.reservation_namespace, name, group);
    } else {
      spdlog::warn("deleting GPU reservation pod {}: {}", name, deleted.error().Describe());
    }
  }
  unheld_since_ = std::move(unheld);

  std::map<std::string, std::chrono::steady_clock::time_point> orphans;
  for (const core::PodObject* pod : fractional) {
    bool reserved = true;
    bool labelled = false;
    for (const auto& [key, value] : pod->meta.labels) {
      if (key != group_key && key.rfind(group_key + "/", 0) != 0) continue;
      labelled = true;
      if (reservations.count(value) == 0 && in_flight.count(value) == 0) reserved = false;
    }
    if (!labelled || reserved) continue;
    const std::string key = pod->meta.Key();
    auto since = orphan_since_.find(key);
    const auto first = since == orphan_since_.end() ? now : since->second;
    orphans[key] = first;
    if (now - first < options_.collect_grace) continue;
    // Through the Eviction API, as the scheduler's other evictions: a PodDisruptionBudget that
    // forbids it now is asked again at the next collection.
    auto evicted = client_.Evict(pod->meta.namespace_name, pod->meta.name, pod->meta.uid);
    if (evicted.ok() && *evicted == kubeclient::EvictionOutcome::kEvicted) {
      ++stats.orphans_deleted;
      orphans.erase(key);
      spdlog::warn(
          "evicted pod {}: the reservation pod of its shared GPU is gone, so the device is no "
          "longer reserved for it (KAI's rule)",
          key);
    } else if (evicted.Is(ApiReason::kNotFound)) {
      orphans.erase(key);
    }
  }
  orphan_since_ = std::move(orphans);
  return stats;
}

}  // namespace quotient::service
