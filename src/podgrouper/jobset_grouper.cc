// JobSet (jobset.x-k8s.io/v1alpha2): pods are owned by a batch/v1 Job owned by the JobSet. With
// startupPolicyOrder InOrder each replicated job gets its own PodGroup, so a job that may only
// start after the previous one is ready never waits in the same gang as it (a deadlock);
// otherwise the whole JobSet is one gang. KAI's plugins/jobset/jobset_grouper.go, kai-reference §9.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "podgrouper/groupers.h"

namespace quotient::podgrouper {
namespace {

constexpr std::string_view kReplicatedJobLabel = "jobset.sigs.k8s.io/replicatedjob-name";
constexpr std::string_view kInOrder = "InOrder";
constexpr std::string_view kAnyOrder = "AnyOrder";
constexpr int64_t kMaxMinMember = std::numeric_limits<int32_t>::max();

void Warn(std::vector<std::string>& warnings, const Object& object, std::string_view field,
          std::string_view problem) {
  warnings.push_back(object.Describe() + ": " + std::string(field) + ": " + std::string(problem));
}

// KAI treats a JobSet without a startup policy as InOrder (JobSet's own default is AnyOrder, but
// its webhook writes the policy into every JobSet it admits, so this only matters for objects
// that bypassed it).
bool StartsInOrder(const Object& jobset, std::vector<std::string>& warnings) {
  const kube::Value* order = At(jobset, {"spec", "startupPolicy", "startupPolicyOrder"});
  if (order == nullptr || order->is_null()) return true;
  if (order->type() != kube::Value::Type::kString) {
    Warn(warnings, jobset, "spec.startupPolicy.startupPolicyOrder",
         "not a string; treated as InOrder");
    return true;
  }
  if (order->text() != kInOrder && order->text() != kAnyOrder) {
    Warn(warnings, jobset, "spec.startupPolicy.startupPolicyOrder",
         "unknown order \"" + order->text() + "\"; treated as AnyOrder");
  }
  return order->text() == kInOrder;
}

// A count that must be positive to mean anything: 0, absent or unreadable give `fallback`.
int64_t PositiveCountOr(const kube::Value* value, const Object& jobset, const std::string& field,
                        int64_t fallback, std::vector<std::string>& warnings) {
  std::optional<int32_t> count = ReadCount(value, jobset, field, warnings);
  return count.has_value() && *count > 0 ? *count : fallback;
}

// One replicated job's gang: its replicas times the pods each Job runs at once, which is the
// Job's parallelism capped by its completions (each defaults to 1).
int64_t ReplicatedJobPods(const Object& jobset, const kube::Value& job, const std::string& field,
                          std::vector<std::string>& warnings) {
  const int64_t replicas =
      PositiveCountOr(job.Find("replicas"), jobset, field + ".replicas", 1, warnings);
  const kube::Value* job_spec = At(&job, {"template", "spec"});
  int64_t parallelism = PositiveCountOr(At(job_spec, {"parallelism"}), jobset,
                                        field + ".template.spec.parallelism", 1, warnings);
  const int64_t completions = PositiveCountOr(At(job_spec, {"completions"}), jobset,
                                              field + ".template.spec.completions", 0, warnings);
  if (completions > 0) parallelism = std::min(parallelism, completions);
  return replicas * parallelism;
}

// The gang size, or 1 with a warning when it does not fit a PodGroup's minMember.
int32_t MinMember(int64_t pods, const Object& jobset, std::string_view field,
                  std::vector<std::string>& warnings) {
  if (pods <= 0) return 1;
  if (pods > kMaxMinMember) {
    Warn(warnings, jobset, field,
         std::to_string(pods) + " pods overflow a PodGroup's minMember; using 1");
    return 1;
  }
  return static_cast<int32_t>(pods);
}

// spec.replicatedJobs as a list; nullptr, with a warning when it is something else.
const kube::Value* ReplicatedJobs(const Object& jobset, std::vector<std::string>& warnings) {
  const kube::Value* jobs = At(jobset, {"spec", "replicatedJobs"});
  if (jobs == nullptr || jobs->is_null()) return nullptr;
  if (!jobs->is_sequence()) {
    Warn(warnings, jobset, "spec.replicatedJobs",
         "not a list but a " + std::string(kube::Value::TypeName(jobs->type())) +
             "; the gang is one pod");
    return nullptr;
  }
  return jobs;
}

// The replicated job at `index` when it is a map with a name; nullptr, with a warning, otherwise.
const kube::Value* NamedReplicatedJob(const Object& jobset, const kube::Value& job, size_t index,
                                      std::vector<std::string>& warnings) {
  const std::string field = "spec.replicatedJobs[" + std::to_string(index) + "]";
  if (!job.is_mapping()) {
    Warn(warnings, jobset, field,
         "not a map but a " + std::string(kube::Value::TypeName(job.type())) + "; skipped");
    return nullptr;
  }
  if (ReadString(job.Find("name")).empty()) {
    Warn(warnings, jobset, field + ".name", "missing; the replicated job is skipped");
    return nullptr;
  }
  return &job;
}

int32_t ReplicatedJobMinMember(const Object& jobset, const std::string& replicated_job,
                               std::vector<std::string>& warnings) {
  const kube::Value* jobs = ReplicatedJobs(jobset, warnings);
  if (jobs == nullptr) return 1;
  for (size_t index = 0; index < jobs->items().size(); ++index) {
    const kube::Value* job = NamedReplicatedJob(jobset, jobs->items()[index], index, warnings);
    if (job == nullptr || ReadString(job->Find("name")) != replicated_job) continue;
    const std::string field = "spec.replicatedJobs[" + std::to_string(index) + "]";
    return MinMember(ReplicatedJobPods(jobset, *job, field, warnings), jobset, field, warnings);
  }
  Warn(warnings, jobset, "spec.replicatedJobs",
       "no replicated job named \"" + replicated_job + "\"; the gang is one pod");
  return 1;
}

int32_t JobSetMinMember(const Object& jobset, std::vector<std::string>& warnings) {
  const kube::Value* jobs = ReplicatedJobs(jobset, warnings);
  if (jobs == nullptr) return 1;
  int64_t total = 0;
  for (size_t index = 0; index < jobs->items().size(); ++index) {
    const kube::Value* job = NamedReplicatedJob(jobset, jobs->items()[index], index, warnings);
    if (job == nullptr) continue;
    const std::string field = "spec.replicatedJobs[" + std::to_string(index) + "]";
    // Each job is capped first so the sum cannot overflow however many jobs there are.
    total += MinMember(ReplicatedJobPods(jobset, *job, field, warnings), jobset, field, warnings);
  }
  return MinMember(total, jobset, "spec.replicatedJobs", warnings);
}

std::string LabelOf(const Object& object, std::string_view key) {
  auto label = object.labels.find(std::string(key));
  return label != object.labels.end() ? label->second : "";
}

// The pod's replicated job: JobSet labels both the pod and its Job (the pod's owner) with it.
std::string ReplicatedJobOf(const Request& request) {
  std::string name = LabelOf(request.pod, kReplicatedJobLabel);
  if (name.empty() && !request.owners.empty()) {
    name = LabelOf(request.owners.front(), kReplicatedJobLabel);
  }
  return name;
}

}  // namespace

Grouping GroupJobSet(const Request& request) {
  Grouping grouping = DefaultGrouping(request);
  std::vector<std::string>& warnings = grouping.warnings;
  const Object& jobset = request.top;

  if (!StartsInOrder(jobset, warnings)) {
    grouping.pod_group.min_member = JobSetMinMember(jobset, warnings);
    return grouping;
  }
  const std::string replicated_job = ReplicatedJobOf(request);
  if (replicated_job.empty()) {
    // KAI refuses the pod; a gang of one under the JobSet's own name keeps it schedulable.
    Warn(warnings, request.pod, "metadata.labels." + std::string(kReplicatedJobLabel),
         "missing on the pod and its Job, so its replicated job's PodGroup is unknown; it joins "
         "a gang of one under the JobSet's PodGroup name");
    return grouping;
  }
  grouping.pod_group.name += "-" + replicated_job;
  grouping.pod_group.min_member = ReplicatedJobMinMember(jobset, replicated_job, warnings);
  return grouping;
}

}  // namespace quotient::podgrouper
