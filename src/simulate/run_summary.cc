#include "simulate/run_summary.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace quotient::simulate {

int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const size_t n = sorted.size();
  size_t rank = (static_cast<size_t>(p) * n + 99) / 100;
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

std::string Milli(int64_t milli) {
  const char* sign = milli < 0 ? "-" : "";
  const int64_t m = milli < 0 ? -milli : milli;
  return fmt::format("{}{}.{:03d}", sign, m / 1000, m % 1000);
}

std::string Percent(int64_t permille) {
  const char* sign = permille < 0 ? "-" : "";
  const int64_t m = permille < 0 ? -permille : permille;
  return fmt::format("{}{}.{}%", sign, m / 10, m % 10);
}

RunSummary Summarize(const SimulationResult& r) {
  RunSummary s;
  s.end_s = r.end.count();
  s.cycles = r.cycles;
  int64_t offered = 0;  // milli-GPU-seconds
  int64_t used = 0;
  int64_t shared = 0;
  int64_t duration = 0;
  int64_t partly_used = 0;  // GPU-seconds
  int64_t stranded = 0;
  int64_t fairness = 0;  // permille-seconds
  int64_t fairness_duration = 0;
  for (size_t i = 0; i + 1 < r.cluster.size(); ++i) {
    const ClusterSample& c = r.cluster[i];
    const int64_t dt = (r.cluster[i + 1].time - c.time).count();
    offered += c.gpu_milli * dt;
    used += c.allocated_gpu_milli * dt;
    shared += c.shared_gpu_milli * dt;
    duration += dt;
    partly_used += c.partly_used_gpus * dt;
    stranded += c.stranded_gpus * dt;
    if (c.jain_permille >= 0) {
      fairness += c.jain_permille * dt;
      fairness_duration += dt;
    }
  }
  if (offered > 0) {
    s.allocation_permille = used * 1000 / offered;
    s.shared_allocation_permille = shared * 1000 / offered;
  }
  if (duration > 0) {
    s.mean_partly_used_gpus_milli = partly_used * 1000 / duration;
    s.mean_stranded_gpus_milli = stranded * 1000 / duration;
  }
  if (fairness_duration > 0) s.fairness_permille = fairness / fairness_duration;
  if (!r.cluster.empty()) {
    s.evictions = r.cluster.back().evictions;
    s.lost_gpu_milli_hours = r.cluster.back().lost_gpu_milli_seconds / 3600;
  }
  std::map<std::string, QueueSummary> queues;
  std::map<std::string, std::vector<int64_t>> completions;
  for (const PodOutcome& p : r.pods) {
    ++s.pods;
    s.completed += p.state == PodState::kCompleted ? 1 : 0;
    s.running += p.state == PodState::kRunning ? 1 : 0;
    s.pending += p.state == PodState::kPending ? 1 : 0;
    QueueSummary& q = queues[p.queue];
    q.queue = p.queue;
    ++q.pods;
    q.evictions += p.evictions;
    if (p.started) {
      ++q.ran;
      q.waits.push_back((*p.started - p.arrival).count());
    }
    if (p.state == PodState::kCompleted && p.finished) {
      ++q.completed;
      completions[p.queue].push_back((*p.finished - p.arrival).count());
    }
  }
  for (auto& [name, q] : queues) {
    std::sort(q.waits.begin(), q.waits.end());
    q.wait_p50 = Percentile(q.waits, 50);
    q.wait_p95 = Percentile(q.waits, 95);
    q.wait_p99 = Percentile(q.waits, 99);
    std::vector<int64_t>& done = completions[name];
    std::sort(done.begin(), done.end());
    q.completion_p50 = Percentile(done, 50);
    q.completion_p95 = Percentile(done, 95);
    s.queues.push_back(std::move(q));
  }
  return s;
}

}  // namespace quotient::simulate
