#include "actions/allocate/allocate.h"

#include <map>
#include <optional>

#include "actions/fit_errors.h"
#include "actions/job_queue.h"
#include "actions/job_tasks.h"
#include "actions/node_order.h"
#include "actions/predicates.h"
#include "fairshare/capacity.h"
#include "framework/statement.h"

namespace quotient::actions {
namespace {

using core::Index;

std::string Argument(const framework::SchedulerConfig& config, const std::string& plugin,
                     const std::string& key) {
  const framework::PluginOption* p = config.FindPlugin(plugin);
  if (p == nullptr) return "";
  auto it = p->arguments.find(key);
  return it == p->arguments.end() ? "" : it->second;
}

// Places one task on its best node; on failure fills `errors` and returns false.
bool PlaceTask(framework::Session& session, framework::Statement& statement, Index pod,
               std::map<std::string, PlacementPolicy>& policies, FitErrors& errors) {
  std::optional<NodeFit> best;
  NodeScore best_score;
  const size_t nodes = session.state().node_count();
  errors.set_nodes(nodes);
  const core::Job& job = session.job(session.pod(pod).job);
  for (size_t n = 0; n < nodes; ++n) {
    const Index node = static_cast<Index>(n);
    if (std::string reason = CheckPredicates(session, pod, node); !reason.empty()) {
      errors.Add(reason);
      continue;
    }
    // The queue check again for this pod alone, with its GPU quota as converted on this node
    // (gpu-memory differs per node), against the allocation the gang has reached so far.
    const fairshare::CapacityVerdict capacity = fairshare::CheckJobOverQueueCapacity(
        session.shares(), job.queue, session.QuotaOf(pod, node), job.preemptible);
    if (!capacity.fits) {
      errors.Add("node(s) would take the queue over capacity (" + capacity.reason + ": " +
                 capacity.message + ")");
      continue;
    }
    const std::string& pool = session.node(node).node_pool;
    auto cached = policies.find(pool);
    if (cached == policies.end()) {
      cached = policies.emplace(pool, PolicyFor(session.config(), pool)).first;
    }
    const PlacementPolicy& policy = cached->second;
    NodeFit fit = FitResources(session, pod, node, policy);
    if (fit.fit == Fit::kNone) {
      errors.Add(fit.reason);
      continue;
    }
    const NodeScore score = ScoreNode(session, pod, node, fit, policy);
    // Nodes come in name order, so keeping the first of equals breaks ties by name.
    if (!best || BetterNode(score, best_score)) {
      best = std::move(fit);
      best_score = score;
    }
  }
  if (!best) return false;
  if (best->fit == Fit::kIdle) {
    statement.Allocate(pod, best->placement);
  } else {
    statement.Pipeline(pod, best->placement);
  }
  return true;
}

int32_t GangMinimum(const core::Job& job) {
  int32_t m = 0;
  for (const core::SubGroup& sg : job.sub_groups) m += sg.leaf ? sg.min_member : 0;
  return m;
}

int32_t AllocatedPods(const framework::Session& session, const core::Job& job) {
  int32_t n = 0;
  for (const core::SubGroup& sg : job.sub_groups) n += sg.leaf ? ActiveAllocated(session, sg) : 0;
  return n;
}

// One attempt at a job; returns whether it placed anything.
bool AllocateJob(framework::Session& session, Index job_index,
                 std::map<std::string, PlacementPolicy>& policies) {
  const core::Job& job = session.job(job_index);
  const TasksToAllocate tasks = SelectTasks(session, job);
  if (tasks.pods.empty()) {
    if (!tasks.shortfall.empty()) session.AddJobReason(job_index, tasks.shortfall);
    return false;
  }
  const fairshare::CapacityVerdict verdict = fairshare::CheckJobOverQueueCapacity(
      session.shares(), job.queue, RequestOf(session, tasks.pods), job.preemptible);
  if (!verdict.fits) {
    session.AddJobReason(job_index, verdict.reason + ": " + verdict.message);
    return false;
  }
  const int32_t allocated_before = AllocatedPods(session, job);
  framework::Statement statement(session, "allocate");
  for (size_t k = 0; k < tasks.pods.size(); ++k) {
    FitErrors errors;
    if (PlaceTask(session, statement, tasks.pods[k], policies, errors)) continue;
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
  if (statement.HasPipelinedSince(0)) statement.ConvertAllocatedToPipelined(0);
  statement.Commit();
  return true;
}

}  // namespace

PlacementPolicy PolicyFor(const framework::SchedulerConfig& config, const std::string& node_pool) {
  const auto strategy = [&](const std::string& resource) {
    std::string value;
    if (!node_pool.empty()) value = Argument(config, "nodeplacement", node_pool + "." + resource);
    if (value.empty()) value = Argument(config, "nodeplacement", resource);
    return value != "spread";
  };
  PlacementPolicy p;
  p.gpu_binpack = strategy("gpu");
  p.cpu_binpack = strategy("cpu");
  if (config.FindPlugin("gpuspread")) {
    p.pack_shared_gpus = false;
  } else if (config.FindPlugin("gpupack")) {
    p.pack_shared_gpus = true;
  } else {
    p.pack_shared_gpus = p.gpu_binpack;
  }
  return p;
}

void AllocateAction::Execute(framework::Session& session) {
  int depth = 0;
  if (auto it = session.config().queue_depth_per_action.find("allocate");
      it != session.config().queue_depth_per_action.end()) {
    depth = it->second;
  }
  JobQueue queue(session, depth);
  std::map<std::string, PlacementPolicy> policies;  // by node pool
  while (std::optional<Index> job = queue.Pop(session)) {
    if (AllocateJob(session, *job, policies) && HasPendingTask(session, session.job(*job))) {
      queue.Push(session, *job);
    }
  }
}

}  // namespace quotient::actions
