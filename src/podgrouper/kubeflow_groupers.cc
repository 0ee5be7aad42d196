// Kubeflow groupers (kai-reference §9; KAI's pkg/podgrouper/podgrouper/plugins/kubeflow/): one
// PodGroup per training job, gang sized by spec.runPolicy.schedulingPolicy.minAvailable or else
// by the replicas of every replica type. PyTorchJob adds elasticPolicy.minReplicas and the
// `master`/`worker` subgroups (optionally cut into `worker-<i>` segments); MPIJob leaves the
// launcher out of the gang while the operator waits for the workers before creating it.
//
// Where KAI refuses to group a malformed job (an error and no PodGroup), these groupers warn,
// naming the object and field, and fall back to a count that lets the pods that do exist run.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "kube/text_formats.h"
#include "podgrouper/groupers.h"

namespace quotient::podgrouper {

namespace {

constexpr std::string_view kReplicaTypeLabel = "training.kubeflow.org/replica-type";
constexpr std::string_view kReplicaIndexLabel = "training.kubeflow.org/replica-index";
// The labels the MPI operator puts on the launcher pod, which KAI lists it by.
constexpr std::string_view kJobNameLabel = "training.kubeflow.org/job-name";
constexpr std::string_view kJobRoleLabel = "training.kubeflow.org/job-role";
constexpr std::string_view kLauncherRole = "launcher";
constexpr std::string_view kWaitForWorkersReady = "WaitForWorkersReady";
constexpr std::string_view kSegmentSizeKey = "kai.scheduler/segment-size";

constexpr std::string_view kMaster = "Master";
constexpr std::string_view kWorker = "Worker";
constexpr std::string_view kLauncher = "Launcher";

// The shape of one distributed kind's spec.
struct DistributedKind {
  std::string_view replica_specs_field;  // under spec: "pytorchReplicaSpecs"
  std::span<const std::string_view> known_types;
  std::span<const std::string_view> required_types;
};

constexpr std::string_view kMasterAndWorker[] = {kMaster, kWorker};
constexpr std::string_view kWorkerOnly[] = {kWorker};
constexpr std::string_view kLauncherAndWorker[] = {kLauncher, kWorker};
constexpr std::string_view kTensorFlowTypes[] = {"Chief", "PS", kWorker, kMaster, "Evaluator"};

constexpr DistributedKind kPyTorch{"pytorchReplicaSpecs", kMasterAndWorker, {}};
constexpr DistributedKind kTensorFlow{"tfReplicaSpecs", kTensorFlowTypes, {}};
constexpr DistributedKind kXGBoost{"xgbReplicaSpecs", kMasterAndWorker, kMasterAndWorker};
constexpr DistributedKind kJAX{"jaxReplicaSpecs", kWorkerOnly, kWorkerOnly};
constexpr DistributedKind kMPI{"mpiReplicaSpecs", kLauncherAndWorker, kLauncherAndWorker};

char AsciiLower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string Lowercase(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), AsciiLower);
  return lower;
}

// Replica types compare case-insensitively: the training operator accepts "worker" for "Worker"
// and labels pods with the lowercase name.
bool SameType(std::string_view a, std::string_view b) { return Lowercase(a) == Lowercase(b); }

std::string Join(std::span<const std::string_view> names) {
  std::string joined;
  for (const std::string_view name : names) {
    if (!joined.empty()) joined += ", ";
    joined += name;
  }
  return joined;
}

int32_t ClampToInt32(int64_t value) {
  return static_cast<int32_t>(std::clamp<int64_t>(value, 0, INT32_MAX));
}

// A PodGroup's minMember is at least 1 (the CRD's minimum; the scheduler reads 0 as 1 anyway).
int32_t AtLeastOne(int32_t count) { return std::max<int32_t>(count, 1); }

// ReadCount, with what the grouper does instead appended to its warning.
std::optional<int32_t> ReadCountOr(const kube::Value* value, const Object& job,
                                   const std::string& field, std::string_view instead,
                                   std::vector<std::string>& warnings) {
  std::vector<std::string> problems;
  const std::optional<int32_t> count = ReadCount(value, job, field, problems);
  for (const std::string& problem : problems) {
    warnings.push_back(problem + "; " + std::string(instead));
  }
  return count;
}

struct ReplicaCount {
  std::string type;  // as the spec writes it
  int32_t count = 0;
  const kube::Value* spec = nullptr;  // the replica spec; nullptr when it is not a map
};

// A job's replica types with their pod counts, in the order the spec lists them.
struct ReplicaTable {
  std::vector<ReplicaCount> replicas;

  const ReplicaCount* Find(std::string_view type) const {
    for (const ReplicaCount& replica : replicas) {
      if (SameType(replica.type, type)) return &replica;
    }
    return nullptr;
  }
  int32_t CountOf(std::string_view type) const {
    const ReplicaCount* replica = Find(type);
    return replica == nullptr ? 0 : replica->count;
  }
  int32_t Total() const {
    int64_t total = 0;
    for (const ReplicaCount& replica : replicas) total += replica.count;
    return ClampToInt32(total);
  }
};

// The pods one replica spec asks for. The training operator defaults a missing `replicas` to 1,
// and 1 is also what a spec it could not decode is counted as: at least one pod of each listed
// type is what the job means, and overcounting only delays the gang where undercounting splits it.
int32_t ReadReplicas(const Object& job, const kube::Value& spec, const std::string& field,
                     std::vector<std::string>& warnings) {
  if (!spec.is_mapping()) {
    warnings.push_back(job.Describe() + ": " + field + ": expected a map, got a " +
                       std::string(kube::Value::TypeName(spec.type())) + "; counting 1 pod");
    return 1;
  }
  const std::string replicas_field = field + ".replicas";
  const kube::Value* replicas = spec.Find("replicas");
  if (replicas == nullptr || replicas->is_null()) {
    warnings.push_back(job.Describe() + ": " + replicas_field +
                       ": missing; counting 1 pod, the training operator's default");
    return 1;
  }
  const std::optional<int32_t> count =
      ReadCountOr(replicas, job, replicas_field, "counting 1 pod", warnings);
  if (!count.has_value()) return 1;
  // KAI rejects a replica type with no pods; the operator creates none, so none are counted.
  if (*count == 0) {
    warnings.push_back(job.Describe() + ": " + replicas_field +
                       ": 0 pods; every replica type of a distributed job needs at least one");
  }
  return *count;
}

void WarnUnknownType(const Object& job, const DistributedKind& kind, const std::string& field,
                     std::vector<std::string>& warnings) {
  warnings.push_back(job.Describe() + ": " + field + ": unknown replica type (" + job.kind +
                     " has " + Join(kind.known_types) + "); its pods are counted");
}

// A missing required type is counted as no pods: waiting for pods the operator will never create
// would keep the gang from ever starting, while the types present are what will run.
void WarnMissingRequiredTypes(const Object& job, const DistributedKind& kind,
                              const ReplicaTable& table, std::vector<std::string>& warnings) {
  for (const std::string_view required : kind.required_types) {
    if (table.Find(required) != nullptr) continue;
    warnings.push_back(job.Describe() + ": spec." + std::string(kind.replica_specs_field) +
                       ": no " + std::string(required) + " replica spec, which " + job.kind +
                       " requires; counting the replica types present");
  }
}

// Every replica type of the job with its count; malformed parts warned about and counted as
// ReadReplicas says. A missing or unreadable replica specs field gives an empty table.
ReplicaTable ReadReplicaTable(const Object& job, const DistributedKind& kind,
                              std::vector<std::string>& warnings) {
  ReplicaTable table;
  const std::string field = "spec." + std::string(kind.replica_specs_field);
  const kube::Value* specs = At(job, {"spec", kind.replica_specs_field});
  if (specs == nullptr || specs->is_null()) {
    warnings.push_back(job.Describe() + ": " + field + ": missing; counting no pods");
    return table;
  }
  if (!specs->is_mapping()) {
    warnings.push_back(job.Describe() + ": " + field + ": expected a map, got a " +
                       std::string(kube::Value::TypeName(specs->type())) + "; counting no pods");
    return table;
  }
  for (size_t i = 0; i < specs->size(); ++i) {
    const std::string& type = specs->keys()[i];
    const kube::Value& spec = specs->items()[i];
    const std::string type_field = field + "." + type;
    const bool known = std::any_of(kind.known_types.begin(), kind.known_types.end(),
                                   [&](std::string_view k) { return SameType(k, type); });
    if (!known) WarnUnknownType(job, kind, type_field, warnings);
    table.replicas.push_back(
        {type, ReadReplicas(job, spec, type_field, warnings), spec.is_mapping() ? &spec : nullptr});
  }
  WarnMissingRequiredTypes(job, kind, table, warnings);
  return table;
}

std::optional<int32_t> SchedulingPolicyMinAvailable(const Object& job,
                                                    std::vector<std::string>& warnings) {
  return ReadCountOr(At(job, {"spec", "runPolicy", "schedulingPolicy", "minAvailable"}), job,
                     "spec.runPolicy.schedulingPolicy.minAvailable", "ignored", warnings);
}

// KAI's KubeflowDistributedGrouper: schedulingPolicy.minAvailable, else every replica's pods.
int32_t DistributedMinMember(const Object& job, const ReplicaTable& table,
                             std::vector<std::string>& warnings) {
  return AtLeastOne(SchedulingPolicyMinAvailable(job, warnings).value_or(table.Total()));
}

Grouping GroupDistributedJob(const Request& request, const DistributedKind& kind) {
  Grouping g = DefaultGrouping(request);
  const ReplicaTable table = ReadReplicaTable(request.top, kind, g.warnings);
  g.pod_group.min_member = DistributedMinMember(request.top, table, g.warnings);
  return g;
}

// --- PyTorchJob ------------------------------------------------------------------------------

constexpr std::string_view kMasterSubGroup = "master";
constexpr std::string_view kWorkerSubGroup = "worker";

// minAvailable, else elasticPolicy.minReplicas (an elastic job gangs only its minimum), else
// every replica's pods; KAI's order.
int32_t PyTorchMinMember(const Object& job, const ReplicaTable& table,
                         std::vector<std::string>& warnings) {
  std::optional<int32_t> min = SchedulingPolicyMinAvailable(job, warnings);
  if (!min.has_value()) {
    min = ReadCountOr(At(job, {"spec", "elasticPolicy", "minReplicas"}), job,
                      "spec.elasticPolicy.minReplicas", "ignored", warnings);
  }
  return AtLeastOne(min.value_or(table.Total()));
}

// kai.scheduler/segment-size from the pod, else from the Worker pod template; nullopt when
// neither sets it or it is not a positive integer (warned: the workers are then one subgroup).
std::optional<int32_t> SegmentSize(const Request& request, const ReplicaCount& worker,
                                   std::vector<std::string>& warnings) {
  std::string text;
  std::string where;
  if (auto it = request.pod.annotations.find(std::string(kSegmentSizeKey));
      it != request.pod.annotations.end() && !it->second.empty()) {
    text = it->second;
    where = request.pod.Describe() + ": annotation " + std::string(kSegmentSizeKey);
  } else {
    text = ReadString(At(worker.spec, {"template", "metadata", "annotations", kSegmentSizeKey}));
    where = request.top.Describe() + ": spec.pytorchReplicaSpecs." + worker.type +
            ".template.metadata.annotations." + std::string(kSegmentSizeKey);
  }
  if (text.empty()) return std::nullopt;
  const Result<int64_t> size = kube::ParseDecimalInteger(text, 1, INT32_MAX);
  if (!size.ok()) {
    warnings.push_back(where + ": expected a positive integer, got \"" + text +
                       "\"; the workers are not segmented");
    return std::nullopt;
  }
  return static_cast<int32_t>(size.value());
}

// The worker segment of a worker pod, by its replica index; "" (warned) without a usable index.
std::string WorkerSegmentOf(const Object& pod, int32_t segment_size, int32_t segments,
                            std::vector<std::string>& warnings) {
  const auto it = pod.labels.find(std::string(kReplicaIndexLabel));
  const std::string index_text = it == pod.labels.end() ? "" : it->second;
  const Result<int64_t> index = kube::ParseDecimalInteger(index_text, 0, INT32_MAX);
  const int64_t segment = index.ok() ? index.value() / segment_size : segments;
  if (segment >= segments) {
    warnings.push_back(pod.Describe() + ": label " + std::string(kReplicaIndexLabel) + ": \"" +
                       index_text + "\" names none of the " + std::to_string(segments) +
                       " worker segments of " + std::to_string(segment_size) +
                       "; the pod has no subgroup");
    return "";
  }
  return std::string(kWorkerSubGroup) + "-" + std::to_string(segment);
}

// KAI's segments: `worker` becomes a parent of `worker-<i>` subgroups of segment_size workers
// each (the last one holds the rest), so each segment is a gang of its own. KAI also gives the
// segments a topology constraint; SubGroupSpec carries none, so that part is left out.
void AddWorkerSegments(const Request& request, int32_t workers, int32_t segment_size, Grouping& g) {
  const int32_t segments = workers / segment_size + (workers % segment_size == 0 ? 0 : 1);
  for (int32_t i = 0; i < segments; ++i) {
    const bool partial_last = i == segments - 1 && workers % segment_size != 0;
    g.pod_group.sub_groups.push_back({std::string(kWorkerSubGroup) + "-" + std::to_string(i),
                                      partial_last ? workers % segment_size : segment_size,
                                      std::string(kWorkerSubGroup)});
  }
  if (g.pod_sub_group == kWorkerSubGroup) {
    g.pod_sub_group = WorkerSegmentOf(request.pod, segment_size, segments, g.warnings);
  }
}

// The pod's subgroup from its replica-type label; warned when no subgroup matches, since the
// scheduler would then count it in none of the job's gangs.
void AssignPyTorchPod(const Request& request, Grouping& g) {
  const auto it = request.pod.labels.find(std::string(kReplicaTypeLabel));
  const std::string type = it == request.pod.labels.end() ? "" : Lowercase(it->second);
  for (const SubGroupSpec& sub_group : g.pod_group.sub_groups) {
    if (sub_group.name == type) {
      g.pod_sub_group = type;
      return;
    }
  }
  if (g.pod_group.sub_groups.empty()) return;
  g.warnings.push_back(request.pod.Describe() + ": label " + std::string(kReplicaTypeLabel) +
                       ": \"" + type + "\" names no subgroup of " + request.top.Describe() +
                       "; the pod has no subgroup");
}

// KAI's subgroups: `master` with every master (when the job has masters) and `worker` with the
// rest of minMember. When minMember does not exceed the masters, KAI's worker minimum is 0, which
// the PodGroup CRD rejects and the scheduler would read as 1; 1 is written directly.
void AddPyTorchSubGroups(const Request& request, const ReplicaTable& table, Grouping& g) {
  const int32_t masters = table.CountOf(kMaster);
  if (masters > 0) g.pod_group.sub_groups.push_back({std::string(kMasterSubGroup), masters, ""});
  const ReplicaCount* worker = table.Find(kWorker);
  if (worker != nullptr) {
    g.pod_group.sub_groups.push_back(
        {std::string(kWorkerSubGroup), AtLeastOne(g.pod_group.min_member - masters), ""});
  }
  AssignPyTorchPod(request, g);
  if (worker == nullptr) return;
  const std::optional<int32_t> segment_size = SegmentSize(request, *worker, g.warnings);
  if (segment_size.has_value() && worker->count > 0) {
    AddWorkerSegments(request, worker->count, *segment_size, g);
  }
}

// --- MPIJob ----------------------------------------------------------------------------------

bool IsTerminating(const Object& pod) {
  const kube::Value* deletion = At(pod, {"metadata", "deletionTimestamp"});
  return deletion != nullptr && !deletion->is_null();
}

// Whether the operator has created the launcher pod (one not being deleted), found by the
// labels the MPI operator gives it, as KAI lists it.
bool LiveLauncherExists(const Request& request) {
  const Labels selector = {{std::string(kJobNameLabel), request.top.name},
                           {std::string(kJobRoleLabel), std::string(kLauncherRole)}};
  const std::vector<const Object*> pods =
      request.view.PodsWithLabels(request.top.namespace_name, selector);
  return std::any_of(pods.begin(), pods.end(),
                     [](const Object* pod) { return !IsTerminating(*pod); });
}

bool WaitsForLauncher(const Request& request) {
  const std::string policy = ReadString(At(request.top, {"spec", "launcherCreationPolicy"}));
  return policy == kWaitForWorkersReady && !LiveLauncherExists(request);
}

}  // namespace

Grouping GroupPyTorchJob(const Request& request) {
  Grouping g = DefaultGrouping(request);
  const ReplicaTable table = ReadReplicaTable(request.top, kPyTorch, g.warnings);
  g.pod_group.min_member = PyTorchMinMember(request.top, table, g.warnings);
  AddPyTorchSubGroups(request, table, g);
  return g;
}

Grouping GroupTFJob(const Request& request) { return GroupDistributedJob(request, kTensorFlow); }

Grouping GroupXGBoostJob(const Request& request) { return GroupDistributedJob(request, kXGBoost); }

Grouping GroupJAXJob(const Request& request) { return GroupDistributedJob(request, kJAX); }

// With launcherCreationPolicy WaitForWorkersReady the operator creates the launcher only once
// the workers run, so until it exists the gang is the workers alone (KAI subtracts the launcher
// replicas from whatever minMember came to, minAvailable included).
Grouping GroupMPIJob(const Request& request) {
  Grouping g = DefaultGrouping(request);
  const ReplicaTable table = ReadReplicaTable(request.top, kMPI, g.warnings);
  int32_t min_member = DistributedMinMember(request.top, table, g.warnings);
  if (WaitsForLauncher(request)) min_member = AtLeastOne(min_member - table.CountOf(kLauncher));
  g.pod_group.min_member = min_member;
  return g;
}

Grouping GroupNotebook(const Request& request) { return DefaultGrouping(request, "build"); }

}  // namespace quotient::podgrouper
