#include "simulate/report_files.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>

namespace quotient::simulate {
namespace {

// A milli-GPU integer as "12.500".
std::string Gpus(int64_t milli) {
  const char* sign = milli < 0 ? "-" : "";
  const int64_t m = milli < 0 ? -milli : milli;
  return fmt::format("{}{}.{:03d}", sign, m / 1000, m % 1000);
}

std::string Seconds(const std::optional<std::chrono::seconds>& t) {
  return t ? std::to_string(t->count()) : "";
}

}  // namespace

int64_t Percentile(const std::vector<int64_t>& sorted, int p) {
  if (sorted.empty()) return 0;
  // Nearest rank: the smallest value with at least p% of the values at or below it.
  const size_t n = sorted.size();
  size_t rank = (static_cast<size_t>(p) * n + 99) / 100;
  rank = std::clamp<size_t>(rank, 1, n);
  return sorted[rank - 1];
}

void WriteClusterCsv(const SimulationResult& r, std::ostream& out) {
  out << "time_s,gpus,allocated_gpus,pending_pods,running_pods,evictions,lost_gpu_hours,"
         "partly_used_gpus,stranded_gpus\n";
  for (const ClusterSample& c : r.cluster) {
    // GPU-hours in milli-GPU-seconds / 3,600,000, printed to three decimals.
    const int64_t lost_milli_gpu_hours = c.lost_gpu_milli_seconds / 3600;
    out << fmt::format("{},{},{},{},{},{},{},{},{}\n", c.time.count(), Gpus(c.gpu_milli),
                       Gpus(c.allocated_gpu_milli), c.pending_pods, c.running_pods, c.evictions,
                       Gpus(lost_milli_gpu_hours), c.partly_used_gpus, c.stranded_gpus);
  }
}

void WriteQueuesCsv(const SimulationResult& r, std::ostream& out) {
  out << "time_s,queue,allocated_gpus,fair_share_gpus,deserved_gpus,pending_pods\n";
  for (const QueueSample& q : r.queues) {
    out << fmt::format("{},{},{},{},{},{}\n", q.time.count(), q.queue, Gpus(q.allocated_gpu_milli),
                       Gpus(q.fair_share_gpu_milli),
                       q.deserved_gpu_milli < 0 ? "unlimited" : Gpus(q.deserved_gpu_milli),
                       q.pending_pods);
  }
}

void WritePodsCsv(const SimulationResult& r, std::ostream& out) {
  out << "pod,pod_group,queue,gpus,arrival_s,started_s,finished_s,wait_s,evictions,state\n";
  for (const PodOutcome& p : r.pods) {
    const std::optional<std::chrono::seconds> wait =
        p.started ? std::optional(*p.started - p.arrival) : std::nullopt;
    out << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", p.pod, p.pod_group, p.queue,
                       Gpus(p.gpu_milli), p.arrival.count(), Seconds(p.started),
                       Seconds(p.finished), Seconds(wait), p.evictions, PodStateName(p.state));
  }
}

void WriteSummary(const SimulationResult& r, std::ostream& out) {
  int64_t completed = 0;
  int64_t running = 0;
  int64_t pending = 0;
  for (const PodOutcome& p : r.pods) {
    completed += p.state == PodState::kCompleted ? 1 : 0;
    running += p.state == PodState::kRunning ? 1 : 0;
    pending += p.state == PodState::kPending ? 1 : 0;
  }
  // Time-weighted GPU allocation: each sample holds until the next.
  int64_t offered = 0;  // milli-GPU-seconds
  int64_t used = 0;
  for (size_t i = 0; i + 1 < r.cluster.size(); ++i) {
    const int64_t dt = (r.cluster[i + 1].time - r.cluster[i].time).count();
    offered += r.cluster[i].gpu_milli * dt;
    used += r.cluster[i].allocated_gpu_milli * dt;
  }
  const ClusterSample last = r.cluster.empty() ? ClusterSample{} : r.cluster.back();
  out << fmt::format("simulated {} s in {} cycles\n", r.end.count(), r.cycles);
  out << fmt::format("pods: {} ({} completed, {} running, {} pending)\n", r.pods.size(), completed,
                     running, pending);
  out << fmt::format("GPU allocation: {}.{}% of GPU time\n",
                     offered == 0 ? 0 : used * 100 / offered,
                     offered == 0 ? 0 : used * 1000 / offered % 10);
  out << fmt::format("evictions: {}, destroying {} GPU-hours\n", last.evictions,
                     Gpus(last.lost_gpu_milli_seconds / 3600));
  std::map<std::string, std::vector<int64_t>> waits;
  std::map<std::string, int64_t> pods_of;
  for (const PodOutcome& p : r.pods) {
    ++pods_of[p.queue];
    if (p.started) waits[p.queue].push_back((*p.started - p.arrival).count());
  }
  out << fmt::format("{:<24} {:>6} {:>6} {:>9} {:>9} {:>9}\n", "QUEUE", "PODS", "RAN", "WAIT_P50",
                     "WAIT_P95", "WAIT_P99");
  for (const auto& [queue, count] : pods_of) {
    std::vector<int64_t>& w = waits[queue];
    std::sort(w.begin(), w.end());
    const size_t ran = w.size();
    const int64_t p50 = Percentile(w, 50);
    const int64_t p95 = Percentile(w, 95);
    const int64_t p99 = Percentile(w, 99);
    out << fmt::format("{:<24} {:>6} {:>6} {:>8}s {:>8}s {:>8}s\n", queue.empty() ? "-" : queue,
                       count, ran, p50, p95, p99);
  }
}

}  // namespace quotient::simulate
