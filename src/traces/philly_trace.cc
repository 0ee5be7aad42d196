#include "traces/philly_trace.h"

#define CSV_IO_NO_THREAD  // read on the caller's thread: nothing to share, nothing to join
// The parser keeps a file name for its messages with a strncpy GCC flags when it inlines it
// here at -O3; the truncation it fears is the parser's documented limit (255 characters).
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <map>

#include "core/quantity.h"
#include "core/time_text.h"
#include "traces/csv_text.h"

namespace quotient::traces {
namespace {

using nlohmann::json;

constexpr const char* kNamespace = "philly";
constexpr const char* kOtherQueue = "philly-other";

std::string QueueOf(const std::string& vc) { return "vc-" + vc; }

// A number column: a Kubernetes-style decimal ("66.0"), rounded up to whole units.
Result<int64_t> WholeNumber(const std::string& text) {
  Result<core::Quantity> q = core::ParseQuantity(text, core::Scale::kUnit, core::Rounding::kUp);
  if (!q.ok()) return Status::Error(q.message());
  return q.value().value();
}

json Meta(const std::string& name, const std::string& ns = "") {
  json meta = {{"name", name}, {"creationTimestamp", "2017-01-01T00:00:00Z"}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

json Queue(const std::string& name, int64_t gpus) {
  const json unlimited = {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  return {{"apiVersion", "scheduling.run.ai/v2"},
          {"kind", "Queue"},
          {"metadata", Meta(name)},
          {"spec",
           {{"resources",
             {{"gpu", {{"quota", gpus}, {"limit", -1}, {"overQuotaWeight", 1}}},
              {"cpu", unlimited},
              {"memory", unlimited}}}}}};
}

json Node(int64_t index) {
  const std::string name = fmt::format("philly-node-{:03d}", index);
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", Meta(name)},
          {"status",
           {{"allocatable",
             {{"cpu", "64"},
              {"memory", "512Gi"},
              {"nvidia.com/gpu", std::to_string(kPhillyGpusPerNode)},
              {"pods", "110"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

}  // namespace

Result<PhillyTrace> ReadPhilly(const std::string& jobs_csv, const std::string& vc_csv,
                               std::optional<size_t> limit) {
  PhillyTrace trace;
  Result<std::string> vc_text = ReadCsvText(vc_csv);
  if (!vc_text.ok()) return vc_text.status();
  Result<std::string> jobs_text = ReadCsvText(jobs_csv);
  if (!jobs_text.ok()) return jobs_text.status();
  try {
    const std::string& v = vc_text.value();
    io::CSVReader<2> vcs(vc_csv, v.data(), v.data() + v.size());
    vcs.read_header(io::ignore_extra_column, "vc", "node num");
    std::string vc;
    std::string nodes;
    while (vcs.read_row(vc, nodes)) {
      Result<int64_t> n = WholeNumber(nodes);
      if (!n.ok() || n.value() < 0) {
        return Status::Error(CsvWhere(vc_csv, vcs.get_file_line(), "node num") + ": \"" + nodes +
                             "\" is not a number of nodes");
      }
      trace.vcs.emplace_back(vc, n.value());
    }
    const std::string& j = jobs_text.value();
    io::CSVReader<4> jobs(jobs_csv, j.data(), j.data() + j.size());
    jobs.read_header(io::ignore_extra_column, "timestamp", "duration", "num_gpus", "cluster");
    std::string timestamp;
    std::string duration;
    std::string gpus;
    while (jobs.read_row(timestamp, duration, gpus, vc)) {
      const unsigned line = jobs.get_file_line();
      PhillyJob job;
      std::string rfc3339 = timestamp;
      std::replace(rfc3339.begin(), rfc3339.end(), ' ', 'T');
      Result<core::Time> submitted = core::ParseRfc3339(rfc3339 + "Z");
      if (!submitted.ok()) {
        return Status::Error(CsvWhere(jobs_csv, line, "timestamp") + ": \"" + timestamp +
                             "\": " + submitted.message());
      }
      job.submitted = submitted.value().time_since_epoch().count();
      Result<int64_t> d = WholeNumber(duration);
      if (!d.ok() || d.value() < 0) {
        return Status::Error(CsvWhere(jobs_csv, line, "duration") + ": \"" + duration +
                             "\" is not a number of seconds");
      }
      job.duration = std::max<int64_t>(1, d.value());
      Result<int64_t> g = WholeNumber(gpus);
      if (!g.ok() || g.value() <= 0) {
        return Status::Error(CsvWhere(jobs_csv, line, "num_gpus") + ": \"" + gpus +
                             "\" is not a positive number of GPUs");
      }
      job.gpus = g.value();
      job.vc = vc;
      trace.jobs.push_back(std::move(job));
    }
  } catch (const io::error::base& e) {
    return Status::Error(std::string("reading the Philly trace: ") + e.what());
  }
  std::stable_sort(
      trace.jobs.begin(), trace.jobs.end(),
      [](const PhillyJob& a, const PhillyJob& b) { return a.submitted < b.submitted; });
  if (limit && trace.jobs.size() > *limit) trace.jobs.resize(*limit);
  return trace;
}

void ForEachPhillyObject(const PhillyTrace& trace, const generate::ObjectVisitor& visit) {
  visit({{"apiVersion", "scheduling.k8s.io/v1"},
         {"kind", "PriorityClass"},
         {"metadata", Meta("train")},
         {"value", 50}});
  std::map<std::string, bool> known;
  int64_t nodes = 0;
  for (const auto& [vc, count] : trace.vcs) {
    visit(Queue(QueueOf(vc), count * kPhillyGpusPerNode));
    known[vc] = true;
    nodes += count;
  }
  visit(Queue(kOtherQueue, 0));
  for (int64_t i = 0; i < nodes; ++i) visit(Node(i));
  const int64_t first = trace.jobs.empty() ? 0 : trace.jobs.front().submitted;
  for (size_t j = 0; j < trace.jobs.size(); ++j) {
    const PhillyJob& job = trace.jobs[j];
    const std::string name = fmt::format("job-{:06d}", j);
    const std::string queue = known.count(job.vc) ? QueueOf(job.vc) : kOtherQueue;
    const int64_t pods = (job.gpus + kPhillyGpusPerNode - 1) / kPhillyGpusPerNode;
    const json times = {
        {"simulation.quotient.dev/arrival", std::to_string(job.submitted - first) + "s"},
        {"simulation.quotient.dev/duration", std::to_string(job.duration) + "s"}};
    json group_meta = Meta(name, kNamespace);
    group_meta["annotations"] = times;
    group_meta["labels"] = {{"philly.quotient.dev/vc", job.vc}};
    visit({{"apiVersion", "scheduling.run.ai/v2alpha2"},
           {"kind", "PodGroup"},
           {"metadata", group_meta},
           {"spec", {{"queue", queue}, {"minMember", pods}, {"priorityClassName", "train"}}}});
    for (int64_t p = 0; p < pods; ++p) {
      const int64_t gpus = std::min(kPhillyGpusPerNode, job.gpus - p * kPhillyGpusPerNode);
      json meta = Meta(name + "-" + std::to_string(p), kNamespace);
      meta["annotations"] = {{"pod-group-name", name}};
      meta["labels"] = {{"kai.scheduler/queue", queue}};
      visit({{"apiVersion", "v1"},
             {"kind", "Pod"},
             {"metadata", meta},
             {"spec",
              {{"schedulerName", "quotient"},
               {"priorityClassName", "train"},
               {"containers",
                {{{"name", "main"},
                  {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}}}}}}}}});
    }
  }
}

}  // namespace quotient::traces
