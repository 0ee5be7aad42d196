// The FGD experiment's results: ours written in the shape of the published
// analysis_allo_discrete.csv, the median unallocated GPU at 100% arrived over seeds, and the
// published medians read back (summary_unallocated_gpu_by_policy.csv in the shared traces).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "experiments/fgd_replay.h"

namespace quotient::experiments {

// `workload,sc_policy,tune,seed,total_gpus,0,...,130`: allocation % with two decimals.
void WriteAllocationCsvHeader(std::ostream& out);
void WriteAllocationCsvRow(const FgdRun& run, const std::string& policy, int64_t tune_permille,
                           std::ostream& out);

// The median over `runs` of unallocated GPU % at `arrived` %, in hundredths (the mean of the
// middle two for an even count, as pandas' median).
int64_t MedianUnallocatedCenti(const std::vector<FgdRun>& runs, int arrived = 100);

// Published medians of unallocated GPU %, in hundredths, by (workload, policy) and arrived %
// (the summary has 90 to 130): ("openb_pod_list_default", "06-FGD") -> 100 -> 477.
using PublishedMedians = std::map<std::pair<std::string, std::string>, std::map<int, int64_t>>;
Result<PublishedMedians> ReadPublishedMedians(const std::string& summary_csv);

}  // namespace quotient::experiments
