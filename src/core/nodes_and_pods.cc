// Nodes and pods: KAI's reading of node labels, pod requests, statuses and GPU requests.
#include <algorithm>
#include <cctype>

#include "core/build_steps.h"
#include "core/node_health.h"

namespace quotient::core::build {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.size() > 18) return std::nullopt;
  int64_t v = 0;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return negative ? -v : v;
}

// nvidia.com/gpu.memory is MiB; values of 1 TiB-in-MiB or more are bytes. KAI floors the result
// to a multiple of 100 MiB.
std::optional<int64_t> GpuMemoryMib(const Labels& labels) {
  auto it = labels.find(std::string(kGpuMemoryNodeLabel));
  if (it == labels.end()) return std::nullopt;
  std::optional<int64_t> v = ParseInt(it->second);
  if (!v || *v <= 0) return std::nullopt;
  constexpr int64_t kOneTebibyteInMib = 1024 * 1024;
  int64_t mib = *v >= kOneTebibyteInMib ? *v / (1024 * 1024) : *v;
  mib = mib / 100 * 100;
  if (mib <= 0) return std::nullopt;
  return mib;
}

std::string UnusableReason(const NodeObject& o) {
  if (!o.problems.empty()) return "invalid node: " + o.problems.front();
  if (!o.ready) return "node is not Ready";
  // The remediator's taints hold whatever a pod tolerates: a pod that tolerates every taint
  // must still not land on a GPU that is failing.
  for (const Taint& t : o.taints) {
    if (t.key == kHardwareRepairTaint) {
      return "node awaits hardware repair (taint " + t.key + "=" + t.value + ")";
    }
    if (t.key == kUnhealthyTaint) {
      return "node is being remediated (taint " + t.key + "=" + t.value + ")";
    }
  }
  if (o.unschedulable) return "node is cordoned (spec.unschedulable)";
  if (!o.bad_conditions.empty()) return "node has condition " + o.bad_conditions.front();
  for (const FaultCondition& c : o.fault_conditions) {
    // A fault the agent scopes to GPUs: only the unhealthy GPUs are left out.
    const bool confined =
        !c.reason.empty() && std::find(o.confined_reasons.begin(), o.confined_reasons.end(),
                                       c.reason) != o.confined_reasons.end();
    if (!confined) {
      return "node has condition " + c.type + (c.reason.empty() ? "" : " (" + c.reason + ")");
    }
  }
  return "";
}

// GPUs left for placement once the agent's unhealthy ones are out. The device plugin may have
// taken the same GPU out of allocatable already (it does for XIDs): counting from capacity when
// it is known means such a GPU is not taken out twice.
Quantity HealthyGpuMilli(const NodeObject& o) {
  const int64_t unhealthy = static_cast<int64_t>(o.unhealthy_gpus.size());
  if (unhealthy == 0) return o.allocatable.gpu_milli;
  const Quantity total = o.capacity_gpu_milli.value_or(o.allocatable.gpu_milli);
  const Quantity left = Max(Quantity(0), total - Quantity(unhealthy * 1000));
  return Min(o.allocatable.gpu_milli, left);
}

// Go's strconv.ParseBool.
std::optional<bool> ParseGoBool(std::string_view s) {
  if (s == "1" || s == "t" || s == "T" || s == "TRUE" || s == "true" || s == "True") return true;
  if (s == "0" || s == "f" || s == "F" || s == "FALSE" || s == "false" || s == "False") {
    return false;
  }
  return std::nullopt;
}

// KAI's node_info.go, IsMIGEnabled and GetMigStrategy: the mig-enabled label decides when it is
// there (a value that is not a boolean means no); without it, any allocatable MIG profile makes
// the node MIG-enabled. The strategy counts only on a MIG-enabled node.
void ReadMig(const NodeObject& o, Node& n, Reporter& reporter) {
  const std::string enabled_key(kMigEnabledNodeLabel);
  if (auto it = o.meta.labels.find(enabled_key); it != o.meta.labels.end()) {
    const std::optional<bool> enabled = ParseGoBool(it->second);
    if (!enabled) {
      reporter.Warn(o.meta, "Node", "metadata.labels[" + enabled_key + "]",
                    "\"" + it->second + "\" is not a boolean; the node is not MIG-enabled");
    }
    n.mig_enabled = enabled.value_or(false);
  } else {
    for (const auto& [name, amount] : o.allocatable.scalars()) {
      if (name.starts_with(kMigResourcePrefix) && amount.value() > 0) n.mig_enabled = true;
    }
  }
  const std::string strategy_key(kMigStrategyNodeLabel);
  if (auto it = o.meta.labels.find(strategy_key); it != o.meta.labels.end()) {
    if (it->second == "single") {
      n.mig_strategy = MigStrategy::kSingle;
    } else if (it->second == "mixed") {
      n.mig_strategy = MigStrategy::kMixed;
    } else if (it->second != "none" && !it->second.empty()) {
      reporter.Warn(o.meta, "Node", "metadata.labels[" + strategy_key + "]",
                    "\"" + it->second + "\" is not single, mixed or none; read as none");
    }
  }
  if (!n.mig_enabled) n.mig_strategy = MigStrategy::kUnset;
}

// KAI's legacy MIG pods (pod_info.go, updateLegacyMigResourceRequestFromAnnotations): an
// annotation nvidia.com/mig-<profile> whose value is an integer replaces the pod's GPU request
// with that many instances of the profile. KAI never places such a pod
// (PredicateByNodeResourcesType), but one running holds its instances, and no MIG pod goes to its
// node. Returns whether the pod is one.
bool ReadLegacyMig(const PodObject& o, Pod& p, Reporter& reporter) {
  const auto warn = [&](const std::string& key, const std::string& message) {
    if (p.ours) reporter.Warn(o.meta, "Pod", "metadata.annotations[" + key + "]", message);
  };
  const std::string* chosen = nullptr;
  int64_t count = 0;
  for (const auto& [key, value] : o.meta.annotations) {
    if (!key.starts_with(kMigResourcePrefix)) continue;
    std::optional<int64_t> v = ParseInt(value);
    if (!v) {
      warn(key, "\"" + value + "\" is not an integer; not read as a legacy MIG request");
      continue;
    }
    if (chosen != nullptr) {
      // KAI keeps whichever its map iteration gives last; the first by name is kept here.
      warn(key, "a second legacy MIG annotation; " + *chosen + " is the one read");
      continue;
    }
    chosen = &key;
    constexpr int64_t kMaxCount = 1000000;
    count = std::clamp<int64_t>(*v, 0, kMaxCount);
    if (count != *v) {
      warn(key,
           "\"" + value + "\" is out of range; read as " + std::to_string(count) + " instances");
    }
  }
  if (chosen == nullptr) return false;
  GpuSharing gpu;
  gpu.kind = GpuSharing::Kind::kMig;
  gpu.legacy_mig = true;
  gpu.mig_gpu_units_milli = Quantity(count * 1000 * MigGpuUnits(*chosen).value_or(0));
  p.gpu = gpu;
  // KAI's request vector: no nvidia.com/gpu, the annotation's instances.
  p.request.gpu_milli = Quantity(0);
  p.request.gpu_memory_mib = Quantity(0);
  p.request.SetScalar(*chosen, Quantity(count * 1000));
  return true;
}

}  // namespace

Node NodeFromObject(const NodeObject& o, const SnapshotOptions& options, Reporter& reporter) {
  Node n;
  n.name = o.meta.name;
  n.labels = o.meta.labels;
  n.taints = o.taints;
  n.allocatable = o.allocatable;
  n.allocatable.gpu_milli = HealthyGpuMilli(o);
  n.unhealthy_gpus = static_cast<int64_t>(o.unhealthy_gpus.size());
  if (auto it = o.meta.labels.find(options.node_pool_label_key); it != o.meta.labels.end()) {
    n.node_pool = it->second;
  }
  n.unusable_reason = UnusableReason(o);
  n.usable = n.unusable_reason.empty();
  n.gpu_memory_mib = GpuMemoryMib(o.meta.labels);
  if (o.meta.labels.count(std::string(kGpuMemoryNodeLabel)) && !n.gpu_memory_mib) {
    reporter.Warn(o.meta, "Node",
                  std::string("metadata.labels[") + std::string(kGpuMemoryNodeLabel) + "]",
                  "not a positive number of MiB; gpu-memory pods will not fit this node");
  }
  ReadMig(o, n, reporter);
  n.gpus.resize(static_cast<size_t>(std::max<int64_t>(0, n.allocatable.gpu_milli.value() / 1000)));
  return n;
}

PodStatus StatusOf(PodPhase phase, bool deleting, bool has_node, bool gated) {
  switch (phase) {
    case PodPhase::kRunning:
      return deleting ? PodStatus::kReleasing : PodStatus::kRunning;
    case PodPhase::kPending:
      if (deleting) return PodStatus::kReleasing;
      if (has_node) return PodStatus::kBound;
      if (gated) return PodStatus::kGated;
      return PodStatus::kPending;
    case PodPhase::kSucceeded:
      return PodStatus::kSucceeded;
    case PodPhase::kFailed:
      return PodStatus::kFailed;
    case PodPhase::kUnknown:
      return PodStatus::kUnknown;
  }
  return PodStatus::kUnknown;
}

namespace {

PodStatus StatusOfObject(const PodObject& o) {
  return StatusOf(o.phase, o.meta.deleting, !o.node_name.empty(), o.scheduling_gated);
}

// max(sum of containers, each init container) + overhead, plus one `pods`.
ResourceVector RequestOf(const PodObject& o) {
  ResourceVector sum;
  for (const ContainerResources& c : o.containers) sum += c.requests;
  for (const ContainerResources& c : o.init_containers) sum = ResourceVector::Max(sum, c.requests);
  sum += o.overhead;
  sum.pods_milli += Quantity(1000);
  return sum;
}

// runai-gpu-group=<g> (one device) or runai-gpu-group/<g>=<g> (multi-device), sorted, unique.
std::vector<std::string> GpuGroupsOf(const Labels& labels) {
  std::vector<std::string> groups;
  const std::string key(kGpuGroupLabel);
  for (const auto& [k, v] : labels) {
    if (k == key || (k.size() > key.size() + 1 && k.compare(0, key.size() + 1, key + "/") == 0)) {
      if (!v.empty()) groups.push_back(v);
    }
  }
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  return groups;
}

// A GPU reservation pod (KAI's or ours) of one shared GPU group: it holds the device from the
// device plugin on behalf of the group's fractional pods.
bool IsGpuReservation(const PodObject& o, const std::vector<std::string>& groups) {
  auto app = o.meta.labels.find("app");
  return groups.size() == 1 && app != o.meta.labels.end() &&
         (app->second == "kai-resource-reservation" || app->second == "quotient-gpu-reservation");
}

}  // namespace

Pod PodFromObject(const PodObject& o, const SnapshotOptions& options, Reporter& reporter) {
  Pod p;
  p.meta = o.meta.WithoutAnnotations();  // see Pod::meta
  p.key = o.meta.Key();
  p.scheduler_name = o.scheduler_name;
  p.priority_class_name = o.priority_class_name;
  p.ours = o.scheduler_name == options.scheduler_name;
  p.status = StatusOfObject(o);
  p.node_name = o.node_name;
  if (o.phase == PodPhase::kRunning && o.meta.deleting) p.releasing_since = o.meta.deletion_time;
  p.request = RequestOf(o);
  p.node_selector = o.node_selector;
  p.tolerations = o.tolerations;
  p.affinity = o.affinity;
  p.host_ports = o.host_ports;
  p.problems = o.problems;
  p.gpu_groups = GpuGroupsOf(o.meta.labels);
  if (auto it = o.meta.labels.find(std::string(kSubGroupLabel)); it != o.meta.labels.end()) {
    p.sub_group = it->second;
  }
  if (auto it = o.meta.labels.find(std::string(kTaskPriorityLabel)); it != o.meta.labels.end()) {
    p.task_priority = ParseInt(it->second);
    if (!p.task_priority) {
      reporter.Warn(o.meta, "Pod", "metadata.labels[kai.scheduler/task-priority]",
                    "\"" + it->second + "\" is not an integer; ignored");
    }
  }
  const auto label = [&](const char* key) -> std::string_view {
    auto it = o.meta.labels.find(key);
    return it == o.meta.labels.end() ? std::string_view() : std::string_view(it->second);
  };
  const std::string_view role = label("training.kubeflow.org/job-role");
  p.leader_task = role == "master" || role == "launcher" || label("ray.io/node-type") == "head";
  Result<GpuSharing> gpu = ReadGpuSharing(o, p.request);
  if (IsGpuReservation(o, p.gpu_groups)) {
    // Its nvidia.com/gpu: 1 is the group's device, which the fractional pods' portions account
    // for: it joins the group as a holder of nothing, so the device stays shared (no whole-GPU
    // pod takes it) even before the first fractional pod arrives or after the last one left.
    p.request.gpu_milli = Quantity(0);
    p.gpu.kind = GpuSharing::Kind::kFraction;
    p.gpu.portion_milli = Quantity(0);
    p.gpu.num_devices = 1;
  } else if (ReadLegacyMig(o, p, reporter)) {
    // The annotation replaces whatever else the pod asks for (GPU annotations included).
  } else if (gpu.ok()) {
    p.gpu = gpu.value();
  } else if (p.ours) {
    p.problems.push_back(gpu.message());
    reporter.Warn(o.meta, "Pod", "metadata.annotations", gpu.message());
  }
  if (auto it = o.meta.annotations.find(std::string(kPodGroupNameAnnotation));
      it != o.meta.annotations.end()) {
    p.pod_group_name = it->second;
  }
  return p;
}

std::vector<Node> BuildNodes(const std::vector<NodeObject>& objects, const SnapshotOptions& options,
                             Reporter& reporter) {
  std::vector<const NodeObject*> sorted;
  for (const NodeObject& o : objects) sorted.push_back(&o);
  std::stable_sort(sorted.begin(), sorted.end(), [](const NodeObject* a, const NodeObject* b) {
    return a->meta.name < b->meta.name;
  });
  std::vector<Node> nodes;
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i]->meta.name == sorted[i - 1]->meta.name) {
      reporter.Warn(sorted[i]->meta, "Node", "metadata.name",
                    "duplicate node; the first definition is used");
      continue;
    }
    nodes.push_back(NodeFromObject(*sorted[i], options, reporter));
  }
  return nodes;
}

std::vector<Pod> BuildPods(const std::vector<PodObject>& objects, const SnapshotOptions& options,
                           Reporter& reporter) {
  // Keys made once: comparing "ns/name" strings built per comparison dominated the sort.
  std::vector<std::pair<std::string, const PodObject*>> sorted;
  sorted.reserve(objects.size());
  for (const PodObject& o : objects) sorted.emplace_back(o.meta.Key(), &o);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Pod> pods;
  pods.reserve(sorted.size());
  for (size_t i = 0; i < sorted.size(); ++i) {
    if (i > 0 && sorted[i].first == sorted[i - 1].first) {
      reporter.Warn(sorted[i].second->meta, "Pod", "metadata.name",
                    "duplicate pod; the first definition is used");
      continue;
    }
    pods.push_back(PodFromObject(*sorted[i].second, options, reporter));
  }
  return pods;
}

}  // namespace quotient::core::build
