// The Microsoft Philly job list (ATC'19), as the Pollux artifact processed it, turned into a
// cluster and a workload for `quotient simulate` (docs/traces.md §3 in the shared references).
//
//   jobs CSV  `timestamp,duration,num_gpus,gpu_time,cluster`: submission time
//             ("2017-10-09 07:01:55"), run time in seconds, GPUs, GPU-seconds, virtual cluster;
//   VC CSV    `vc,node num` (the Helios artifact's philly_vc.csv): each virtual cluster's nodes.
//
// The cluster: the VCs' nodes, 8 GPUs each; one queue per VC deserving its nodes' GPUs
// (over-quota weight 1, no limit, so idle GPUs are lent); jobs of VCs the VC file lacks go to
// queue `philly-other`, which deserves nothing and only borrows. Each job is a PodGroup of
// pods of at most 8 GPUs (12 GPUs: 8 + 4), all needed at once, arriving at its submission time
// after the first job's and running for its duration (at least 1 s), preemptible (class
// `train`, 50). Bad rows are errors naming the file, line and column.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "generate/cluster_generator.h"

namespace quotient::traces {

struct PhillyJob {
  int64_t submitted = 0;  // seconds since the Unix epoch (the trace's clock, read as UTC)
  int64_t duration = 0;   // seconds
  int64_t gpus = 0;
  std::string vc;
};

struct PhillyTrace {
  std::vector<PhillyJob> jobs;                       // by submission, then file order
  std::vector<std::pair<std::string, int64_t>> vcs;  // name, nodes; in file order
};

// Reads both files; `limit`: only the first N jobs by submission.
Result<PhillyTrace> ReadPhilly(const std::string& jobs_csv, const std::string& vc_csv,
                               std::optional<size_t> limit = std::nullopt);

inline constexpr int64_t kPhillyGpusPerNode = 8;

// The cluster and workload as Kubernetes objects: PriorityClass, Queues, Nodes, then per job its
// PodGroup and pods.
void ForEachPhillyObject(const PhillyTrace& trace, const generate::ObjectVisitor& visit);

}  // namespace quotient::traces
