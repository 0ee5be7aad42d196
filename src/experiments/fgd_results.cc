#include "experiments/fgd_results.h"

#define CSV_IO_NO_THREAD  // read on the caller's thread: nothing to share, nothing to join
// The parser keeps a file name for its messages with a strncpy GCC flags when it inlines it
// here at -O3; the truncation it fears is the parser's documented limit (255 characters).
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <ostream>

#include "core/quantity.h"
#include "traces/csv_text.h"

namespace quotient::experiments {

void WriteAllocationCsvHeader(std::ostream& out) {
  out << "workload,sc_policy,tune,seed,total_gpus";
  for (int i = 0; i <= kMaxArrivedPercent; ++i) out << ',' << i;
  out << '\n';
}

void WriteAllocationCsvRow(const FgdRun& run, const std::string& policy, int64_t tune_permille,
                           std::ostream& out) {
  out << fmt::format("{},{},{}.{},{},{}", run.workload, policy, tune_permille / 1000,
                     tune_permille % 1000 / 100, run.seed, run.cluster_gpu_milli / 1000);
  for (int64_t v : run.allocation_centi) out << fmt::format(",{}.{:02d}", v / 100, v % 100);
  out << '\n';
}

int64_t MedianUnallocatedCenti(const std::vector<FgdRun>& runs, int arrived) {
  std::vector<int64_t> unallocated;
  for (const FgdRun& r : runs) {
    unallocated.push_back(10'000 - r.allocation_centi.at(static_cast<size_t>(arrived)));
  }
  if (unallocated.empty()) return 0;
  std::sort(unallocated.begin(), unallocated.end());
  const size_t n = unallocated.size();
  if (n % 2 == 1) return unallocated[n / 2];
  return (unallocated[n / 2 - 1] + unallocated[n / 2]) / 2;
}

Result<PublishedMedians> ReadPublishedMedians(const std::string& summary_csv) {
  Result<std::string> text = traces::ReadCsvText(summary_csv);
  if (!text.ok()) return Status::Error(text.message());
  PublishedMedians medians;
  try {
    io::CSVReader<4> csv(summary_csv, text.value().data(),
                         text.value().data() + text.value().size());
    csv.read_header(io::ignore_extra_column, "workload", "sc_policy", "arrived_workload_pct",
                    "unalloc_gpu_pct_median");
    std::string workload, policy, arrived, median;
    while (csv.read_row(workload, policy, arrived, median)) {
      Result<core::Quantity> at =
          core::ParseQuantity(arrived, core::Scale::kUnit, core::Rounding::kDown);
      if (!at.ok() || at.value().value() < 0 || at.value().value() > kMaxArrivedPercent) {
        return Status::Error(
            traces::CsvWhere(summary_csv, csv.get_file_line(), "arrived_workload_pct") + ": \"" +
            arrived + "\" is not a percentage from 0 to 130");
      }
      Result<core::Quantity> q =
          core::ParseQuantity(median, core::Scale::kMilli, core::Rounding::kDown);
      if (!q.ok()) {
        return Status::Error(
            traces::CsvWhere(summary_csv, csv.get_file_line(), "unalloc_gpu_pct_median") + ": \"" +
            median + "\": " + q.message());
      }
      medians[{workload, policy}][static_cast<int>(at.value().value())] = q.value().value() / 10;
    }
  } catch (const io::error::base& e) {
    return Status::Error(std::string("reading the published FGD results: ") + e.what());
  }
  return medians;
}

}  // namespace quotient::experiments
