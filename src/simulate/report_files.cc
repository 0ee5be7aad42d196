#include "simulate/report_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

namespace quotient::simulate {
namespace {

std::string Seconds(const std::optional<std::chrono::seconds>& t) {
  return t ? std::to_string(t->count()) : "";
}

}  // namespace

void WriteClusterCsv(const SimulationResult& r, std::ostream& out) {
  out << "time_s,gpus,allocated_gpus,shared_gpus,pending_pods,running_pods,evictions,"
         "lost_gpu_hours,partly_used_gpus,stranded_gpus,fairness\n";
  for (const ClusterSample& c : r.cluster) {
    // GPU-hours in milli-GPU-seconds / 3,600,000, printed to three decimals.
    const int64_t lost_milli_gpu_hours = c.lost_gpu_milli_seconds / 3600;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", c.time.count(), Milli(c.gpu_milli),
                       Milli(c.allocated_gpu_milli), Milli(c.shared_gpu_milli), c.pending_pods,
                       c.running_pods, c.evictions, Milli(lost_milli_gpu_hours), c.partly_used_gpus,
                       c.stranded_gpus, c.jain_permille < 0 ? "" : Milli(c.jain_permille));
  }
}

void WriteQueuesCsv(const SimulationResult& r, std::ostream& out) {
  out << "time_s,queue,allocated_gpus,fair_share_gpus,deserved_gpus,pending_pods\n";
  for (const QueueSample& q : r.queues) {
    out << fmt::format("{},{},{},{},{},{}\n", q.time.count(), q.queue, Milli(q.allocated_gpu_milli),
                       Milli(q.fair_share_gpu_milli),
                       q.deserved_gpu_milli < 0 ? "unlimited" : Milli(q.deserved_gpu_milli),
                       q.pending_pods);
  }
}

void WritePodsCsv(const SimulationResult& r, std::ostream& out) {
  out << "pod,pod_group,queue,gpus,arrival_s,started_s,finished_s,wait_s,evictions,state\n";
  for (const PodOutcome& p : r.pods) {
    const std::optional<std::chrono::seconds> wait =
        p.started ? std::optional(*p.started - p.arrival) : std::nullopt;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", p.pod, p.pod_group, p.queue,
                       Milli(p.gpu_milli), p.arrival.count(), Seconds(p.started),
                       Seconds(p.finished), Seconds(wait), p.evictions, PodStateName(p.state));
  }
}

void WriteSummary(const SimulationResult& r, std::ostream& out) {
  const RunSummary s = Summarize(r);
  out << fmt::format("simulated {} s in {} cycles\n", s.end_s, s.cycles);
  out << fmt::format("pods: {} ({} completed, {} running, {} pending)\n", s.pods, s.completed,
                     s.running, s.pending);
  out << fmt::format("GPU allocation: {} of GPU time ({} by fractional pods)\n",
                     Percent(s.allocation_permille), Percent(s.shared_allocation_permille));
  out << fmt::format("evictions: {}, destroying {} GPU-hours\n", s.evictions,
                     Milli(s.lost_gpu_milli_hours));
  out << fmt::format("fragmentation: {} GPUs partly used, {} idle GPUs stranded (mean)\n",
                     Milli(s.mean_partly_used_gpus_milli), Milli(s.mean_stranded_gpus_milli));
  out << fmt::format("fairness: {} (Jain's index of allocation over fair share, mean)\n",
                     s.fairness_permille < 0 ? "-" : Milli(s.fairness_permille));
  out << fmt::format("{:<24} {:>6} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9}\n", "QUEUE", "PODS", "RAN",
                     "EVICT", "WAIT_P50", "WAIT_P95", "WAIT_P99", "JCT_P50");
  for (const QueueSummary& q : s.queues) {
    out << fmt::format("{:<24} {:>6} {:>6} {:>6} {:>8}s {:>8}s {:>8}s {:>8}s\n",
                       q.queue.empty() ? "-" : q.queue, q.pods, q.ran, q.evictions, q.wait_p50,
                       q.wait_p95, q.wait_p99, q.completion_p50);
  }
}

}  // namespace quotient::simulate
