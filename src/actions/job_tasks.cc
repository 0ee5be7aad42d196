#include "actions/job_tasks.h"

#include <algorithm>

#include "common/int128.h"
#include "core/accounting.h"
#include "core/time_text.h"

namespace quotient::actions {

bool IsActiveAllocated(core::PodStatus s) {
  return s == core::PodStatus::kAllocated || s == core::PodStatus::kPipelined ||
         s == core::PodStatus::kBinding || s == core::PodStatus::kBound ||
         s == core::PodStatus::kRunning;
}

bool TaskBefore(const core::Pod& a, const core::Pod& b) {
  if (a.leader_task != b.leader_task) return a.leader_task;
  if (a.task_priority.has_value() != b.task_priority.has_value()) {
    return a.task_priority.has_value();
  }
  if (a.task_priority && *a.task_priority != *b.task_priority) {
    return *a.task_priority > *b.task_priority;
  }
  if (a.meta.creation_time != b.meta.creation_time) {
    return a.meta.creation_time < b.meta.creation_time;
  }
  return a.key < b.key;
}

int32_t ActiveAllocated(const framework::Session& session, const core::SubGroup& sub_group) {
  int32_t n = 0;
  for (Index i : sub_group.pods) n += IsActiveAllocated(session.state().pod(i).status);
  return n;
}

bool IsGangSatisfied(const framework::Session& session, const core::Job& job) {
  for (const core::SubGroup& sg : job.sub_groups) {
    if (sg.leaf && ActiveAllocated(session, sg) < sg.min_member) return false;
  }
  return true;
}

int32_t GangMinimum(const core::Job& job) {
  int32_t m = 0;
  for (const core::SubGroup& sg : job.sub_groups) m += sg.leaf ? sg.min_member : 0;
  return m;
}

namespace {

bool IsPendingTask(const framework::Session& session, Index pod,
                   const VirtuallyPending* virtual_pending) {
  const core::PodStatus status = session.state().pod(pod).status;
  if (!session.pod(pod).problems.empty()) return false;
  return status == core::PodStatus::kPending ||
         (virtual_pending != nullptr && status == core::PodStatus::kReleasing &&
          virtual_pending->count(pod) > 0);
}

}  // namespace

bool HasPendingTask(const framework::Session& session, const core::Job& job,
                    const VirtuallyPending* virtual_pending) {
  for (Index i : job.pods) {
    if (IsPendingTask(session, i, virtual_pending)) return true;
  }
  return false;
}

std::vector<Index> PendingTasks(const framework::Session& session, const core::SubGroup& sub_group,
                                const VirtuallyPending* virtual_pending) {
  std::vector<Index> out;
  for (Index i : sub_group.pods) {
    if (IsPendingTask(session, i, virtual_pending)) out.push_back(i);
  }
  std::sort(out.begin(), out.end(),
            [&](Index a, Index b) { return TaskBefore(session.pod(a), session.pod(b)); });
  return out;
}

TasksToAllocate SelectTasks(const framework::Session& session, const core::Job& job,
                            const VirtuallyPending* virtual_pending) {
  struct Leaf {
    const core::SubGroup* group;
    int32_t allocated;
  };
  std::vector<Leaf> leaves;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (sg.leaf) leaves.push_back({&sg, ActiveAllocated(session, sg)});
  }
  // Below minimum first, then the lower allocated/minimum ratio, then name.
  std::sort(leaves.begin(), leaves.end(), [](const Leaf& a, const Leaf& b) {
    const bool a_below = a.allocated < a.group->min_member;
    const bool b_below = b.allocated < b.group->min_member;
    if (a_below != b_below) return a_below;
    const Int128 lhs = static_cast<Int128>(a.allocated) * b.group->min_member;
    const Int128 rhs = static_cast<Int128>(b.allocated) * a.group->min_member;
    if (lhs != rhs) return lhs < rhs;
    return a.group->name < b.group->name;
  });
  TasksToAllocate out;
  for (const Leaf& leaf : leaves) {
    if (leaf.allocated >= leaf.group->min_member) continue;
    const int32_t missing = leaf.group->min_member - leaf.allocated;
    std::vector<Index> pending = PendingTasks(session, *leaf.group, virtual_pending);
    if (static_cast<int32_t>(pending.size()) < missing && virtual_pending != nullptr) {
      out.pods.insert(out.pods.end(), pending.begin(), pending.end());
      out.required += static_cast<int32_t>(pending.size());
      continue;
    }
    if (static_cast<int32_t>(pending.size()) < missing) {
      out.shortfall = "subgroup " + leaf.group->name + " needs " + std::to_string(missing) +
                      " more pods but only " + std::to_string(pending.size()) + " are pending";
      out.pods.clear();
      return out;
    }
    out.pods.insert(out.pods.end(), pending.begin(), pending.begin() + missing);
    out.required += missing;
  }
  if (!out.pods.empty()) return out;
  for (const Leaf& leaf : leaves) {
    std::vector<Index> pending = PendingTasks(session, *leaf.group, virtual_pending);
    if (!pending.empty()) {
      out.pods.push_back(pending.front());
      return out;
    }
  }
  return out;
}

core::ShareVector RequestOf(const framework::Session& session, const std::vector<Index>& pods) {
  core::ShareVector sum;
  for (Index i : pods) sum += session.QuotaOf(i, core::kNone);
  return sum;
}

core::ShareVector CapacityCheckRequestOf(const framework::Session& session,
                                         const std::vector<Index>& pods) {
  core::ShareVector sum;
  for (Index i : pods) sum += core::CapacityCheckQuotaOf(session.pod(i), session.snapshot());
  return sum;
}

std::optional<core::Time> PreemptionDelayEnd(const core::Job& job) {
  if (!job.preemption_delay) return std::nullopt;
  core::Time anchor = job.creation_time;
  if (job.last_eviction_time && *job.last_eviction_time > anchor) anchor = *job.last_eviction_time;
  return anchor + *job.preemption_delay;
}

bool WithinPreemptionDelay(framework::Session& session, Index job_index) {
  const core::Job& job = session.job(job_index);
  const std::optional<core::Time> end = PreemptionDelayEnd(job);
  if (!end || session.snapshot().now >= *end) return false;
  const std::string reason =
      "PreemptionDelayNotElapsed: Workload is within its preemption delay "
      "window (" +
      core::FormatGoDuration(*job.preemption_delay) + ") and may not trigger evictions before " +
      core::FormatRfc3339(*end);
  const std::vector<std::string>& said = session.JobReasons(job_index);
  if (std::find(said.begin(), said.end(), reason) == said.end()) {
    session.AddJobReason(job_index, reason);
  }
  return true;
}

LargestNodes::LargestNodes(const framework::Session& session) {
  for (const core::Node& node : session.snapshot().nodes) {
    auto [it, added] = by_pool_.try_emplace(node.node_pool, node.allocatable);
    if (!added) it->second = core::ResourceVector::Max(it->second, node.allocatable);
  }
}

Index LargestNodes::FirstPodLargerThanEveryNode(const framework::Session& session,
                                                const core::Job& job,
                                                const std::vector<Index>& pods) const {
  static const core::ResourceVector kNoNode;
  const auto it = by_pool_.find(job.node_pool);
  const core::ResourceVector& largest = it == by_pool_.end() ? kNoNode : it->second;
  for (Index p : pods) {
    const core::Pod& pod = session.pod(p);
    // KAI's GPU component: whole devices, or the fraction's portion times its devices (a
    // gpu-memory pod asks for none here).
    core::Quantity gpus = pod.request.gpu_milli;
    if (pod.gpu.kind == core::GpuSharing::Kind::kFraction) {
      gpus = pod.gpu.portion_milli.Times(pod.gpu.num_devices);
    }
    bool larger = gpus > largest.gpu_milli || pod.request.cpu_milli > largest.cpu_milli ||
                  pod.request.memory_bytes > largest.memory_bytes;
    for (const auto& [name, amount] : pod.request.scalars()) {
      larger = larger || (amount > core::Quantity::Zero() && largest.Scalar(name) < amount);
    }
    if (larger) return p;
  }
  return core::kNone;
}

}  // namespace quotient::actions
