#include "actions/min_runtime.h"

#include <optional>
#include <vector>

#include "core/time_text.h"

namespace quotient::actions {
namespace {

using core::Index;

std::vector<Index> PathFromRoot(const framework::Session& session, Index queue) {
  std::vector<Index> path;
  for (Index at = queue; at != core::kNone; at = session.queue(at).parent) {
    path.insert(path.begin(), at);
  }
  return path;
}

std::optional<std::chrono::seconds> PluginDuration(const framework::Session& session,
                                                   const std::string& key) {
  const framework::PluginOption* p = session.config().FindPlugin("minruntime");
  if (p == nullptr) return std::nullopt;
  auto it = p->arguments.find(key);
  if (it == p->arguments.end()) return std::nullopt;
  Result<std::chrono::seconds> d = core::ParseGoDuration(it->second);
  return d.ok() ? std::optional<std::chrono::seconds>(d.value()) : std::nullopt;
}

}  // namespace

Index LeveledQueue(const framework::Session& session, Index a, Index b) {
  const std::vector<Index> pa = PathFromRoot(session, a);
  const std::vector<Index> pb = PathFromRoot(session, b);
  for (size_t i = 0; i < pb.size(); ++i) {
    if (i >= pa.size() || pa[i] != pb[i]) return pb[i];
  }
  return pb.back();
}

bool IsProtectedByMinRuntime(const framework::Session& session, Index victim_job,
                             Index preemptor_queue, MinRuntimeKind kind) {
  const core::Job& job = session.job(victim_job);
  if (!job.last_start_time || job.queue == core::kNone) return false;
  const bool preempt = kind == MinRuntimeKind::kPreempt;
  Index start = job.queue;
  if (!preempt) {
    const framework::PluginOption* p = session.config().FindPlugin("minruntime");
    const bool by_queue = p != nullptr && p->arguments.count("reclaimResolveMethod") &&
                          p->arguments.at("reclaimResolveMethod") == "queue";
    if (!by_queue) start = LeveledQueue(session, preemptor_queue, job.queue);
  }
  std::optional<std::chrono::seconds> min_runtime;
  for (Index at = start; at != core::kNone && !min_runtime; at = session.queue(at).parent) {
    const core::Queue& q = session.queue(at);
    min_runtime = preempt ? q.preempt_min_runtime : q.reclaim_min_runtime;
  }
  if (!min_runtime) {
    min_runtime =
        PluginDuration(session, preempt ? "defaultPreemptMinRuntime" : "defaultReclaimMinRuntime");
  }
  if (!min_runtime || min_runtime->count() <= 0) return false;
  return session.snapshot().now < *job.last_start_time + *min_runtime;
}

}  // namespace quotient::actions
