#include "actions/allocate/allocate.h"

#include <map>
#include <optional>

#include "actions/fit_errors.h"
#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/placer.h"
#include "core/snapshot_builder.h"
#include "core/time_text.h"
#include "fairshare/capacity.h"
#include "framework/statement.h"

namespace quotient::actions {
namespace {

using core::Index;

int32_t AllocatedPods(const framework::Session& session, const core::Job& job) {
  int32_t n = 0;
  for (const core::SubGroup& sg : job.sub_groups) n += sg.leaf ? ActiveAllocated(session, sg) : 0;
  return n;
}

// One attempt at a job; returns whether it placed anything.
bool AllocateJob(framework::Session& session, Index job_index, Placer& placer) {
  const core::Job& job = session.job(job_index);
  const TasksToAllocate tasks = SelectTasks(session, job);
  if (tasks.pods.empty()) {
    if (!tasks.shortfall.empty()) session.AddJobReason(job_index, tasks.shortfall);
    return false;
  }
  const fairshare::CapacityVerdict verdict = fairshare::CheckJobOverQueueCapacity(
      session.shares(), job.queue, CapacityCheckRequestOf(session, tasks.pods), job.preemptible);
  if (!verdict.fits) {
    session.AddJobReason(job_index, verdict.reason + ": " + verdict.message);
    return false;
  }
  const int32_t allocated_before = AllocatedPods(session, job);
  framework::Statement statement(session, "allocate");
  for (size_t k = 0; k < tasks.pods.size(); ++k) {
    FitErrors errors;
    if (placer.Place(statement, tasks.pods[k], errors)) continue;
    std::string reason = errors.Message();
    if (tasks.required > 1) {
      reason = "Resources were found for " +
               std::to_string(allocated_before + static_cast<int32_t>(k)) + " pods while " +
               std::to_string(GangMinimum(job)) +
               " are required for gang scheduling. Additional pods cannot be scheduled due to: " +
               reason;
    }
    statement.Discard();
    session.AddJobReason(job_index, reason);
    return false;
  }
  const bool pipelined = statement.HasPipelinedSince(0);
  if (pipelined) statement.ConvertAllocatedToPipelined(0);
  statement.Commit();
  if (allocated_before == 0 && !pipelined && !job.implicit) {
    // The job starts running: min-runtime protection counts from now (KAI persists this).
    session.RecordAnnotation({job.key, std::string(core::kLastStartAnnotation),
                              core::FormatRfc3339(session.snapshot().now)});
  }
  return true;
}

}  // namespace

void AllocateAction::Execute(framework::Session& session) {
  int depth = 0;
  if (auto it = session.config().queue_depth_per_action.find("allocate");
      it != session.config().queue_depth_per_action.end()) {
    depth = it->second;
  }
  JobQueue queue(session, depth);
  Placer placer(session);
  while (std::optional<Index> job = queue.Pop(session)) {
    if (AllocateJob(session, *job, placer) && HasPendingTask(session, session.job(*job))) {
      queue.Push(session, *job);
    }
  }
}

}  // namespace quotient::actions
