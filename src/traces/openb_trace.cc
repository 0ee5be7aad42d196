#include "traces/openb_trace.h"

#define CSV_IO_NO_THREAD  // read on the caller's thread: nothing to share, nothing to join
// The parser keeps a file name for its messages with a strncpy GCC flags when it inlines it
// here at -O3; the truncation it fears is the parser's documented limit (255 characters).
#pragma GCC diagnostic ignored "-Wstringop-truncation"
#include <fmt/format.h>
#include <libfccp/csv.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <initializer_list>
#include <set>

#include "core/gpu_sharing.h"
#include "generate/kube_objects.h"
#include "traces/csv_text.h"

namespace quotient::traces {
namespace {

using nlohmann::json;

constexpr const char* kNamespace = "openb";
constexpr const char* kQueue = "openb";
constexpr const char* kPriorityClass = "train";
constexpr const char* kQosLabel = "openb.quotient.dev/qos";
constexpr const char* kPhaseLabel = "openb.quotient.dev/phase";

// A whole number of at least 0 in plain digits ("12000"); nullopt for anything else.
std::optional<int64_t> Count(const std::string& text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || stop != end || value < 0) return std::nullopt;
  return value;
}

Status Bad(const std::string& file, unsigned line, const char* column, const std::string& text,
           const std::string& why) {
  return Status::Error(CsvWhere(file, line, column) + ": \"" + text + "\" " + why);
}

// An optional time column: empty is "not known".
Result<std::optional<int64_t>> Seconds(const std::string& file, unsigned line, const char* column,
                                       const std::string& text) {
  if (text.empty()) return std::optional<int64_t>();
  std::optional<int64_t> seconds = Count(text);
  if (!seconds) return Bad(file, line, column, text, "is not a whole number of seconds");
  return seconds;
}

bool IsAlphanumeric(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// A Kubernetes label value: at most 63 characters of [A-Za-z0-9_.-], alphanumeric at both ends.
bool IsLabelValue(const std::string& s) {
  if (s.empty()) return true;
  return s.size() <= 63 && IsAlphanumeric(s.front()) && IsAlphanumeric(s.back()) &&
         std::all_of(s.begin(), s.end(),
                     [](char c) { return IsAlphanumeric(c) || c == '-' || c == '_' || c == '.'; });
}

// A Kubernetes object name (an RFC 1123 subdomain): lower-case alphanumerics, '-' and '.'.
bool IsObjectName(const std::string& s) {
  const auto lower_alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return !s.empty() && s.size() <= 253 && lower_alnum(s.front()) && lower_alnum(s.back()) &&
         std::all_of(s.begin(), s.end(),
                     [&](char c) { return lower_alnum(c) || c == '-' || c == '.'; });
}

// "V100M32|V100M16|V100M32" -> {V100M16, V100M32}; nullopt when an entry is empty or is not a
// label value.
std::optional<std::vector<std::string>> GpuModels(const std::string& spec) {
  std::vector<std::string> models;
  if (spec.empty()) return models;
  for (size_t start = 0;;) {
    const size_t bar = spec.find('|', start);
    std::string model =
        spec.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    if (model.empty() || !IsLabelValue(model)) return std::nullopt;
    models.push_back(std::move(model));
    if (bar == std::string::npos) break;
    start = bar + 1;
  }
  std::sort(models.begin(), models.end());
  models.erase(std::unique(models.begin(), models.end()), models.end());
  return models;
}

// With io::ignore_missing_column the parser accepts any header; these columns must be there.
template <typename Reader>
Status RequireColumns(const Reader& csv, const std::string& file,
                      std::initializer_list<const char*> columns) {
  for (const char* column : columns) {
    if (!csv.has_column(column))
      return Status::Error(file + ": the header has no column " + column);
  }
  return Status::Ok();
}

Status ReadNodes(const std::string& path, const std::string& text, std::vector<OpenbNode>& out) {
  io::CSVReader<5> csv(path, text.data(), text.data() + text.size());
  csv.read_header(io::ignore_extra_column | io::ignore_missing_column, "sn", "cpu_milli",
                  "memory_mib", "gpu", "model");
  if (Status s = RequireColumns(csv, path, {"sn", "cpu_milli", "memory_mib", "gpu"}); !s.ok()) {
    return s;
  }
  std::set<std::string> names;
  std::string sn, cpu, memory, gpus, model;
  while (csv.read_row(sn, cpu, memory, gpus, model)) {
    const unsigned line = csv.get_file_line();
    OpenbNode node;
    if (!IsObjectName(sn)) return Bad(path, line, "sn", sn, "is not a Kubernetes node name");
    if (!names.insert(sn).second) return Bad(path, line, "sn", sn, "names a node twice");
    node.name = sn;
    std::optional<int64_t> n = Count(cpu);
    if (!n) return Bad(path, line, "cpu_milli", cpu, "is not a whole number of milli-cores");
    node.cpu_milli = *n;
    n = Count(memory);
    if (!n) return Bad(path, line, "memory_mib", memory, "is not a whole number of MiB");
    node.memory_mib = *n;
    n = Count(gpus);
    if (!n) return Bad(path, line, "gpu", gpus, "is not a whole number of GPUs");
    node.gpus = *n;
    if (!IsLabelValue(model)) return Bad(path, line, "model", model, "is not a label value");
    node.model = model;
    out.push_back(std::move(node));
  }
  return Status::Ok();
}

Status ReadPods(const std::string& path, const std::string& text, std::vector<OpenbPod>& out) {
  io::CSVReader<11> csv(path, text.data(), text.data() + text.size());
  csv.read_header(io::ignore_extra_column | io::ignore_missing_column, "name", "cpu_milli",
                  "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase",
                  "creation_time", "deletion_time", "scheduled_time");
  if (Status s =
          RequireColumns(csv, path, {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"});
      !s.ok()) {
    return s;
  }
  // A column the header lacks is never assigned: it reads as empty on every row.
  std::set<std::string> names;
  std::string name, cpu, memory, gpus, milli, spec, qos, phase, created, deleted, scheduled;
  while (
      csv.read_row(name, cpu, memory, gpus, milli, spec, qos, phase, created, deleted, scheduled)) {
    const unsigned line = csv.get_file_line();
    OpenbPod pod;
    if (!IsObjectName(name)) return Bad(path, line, "name", name, "is not a Kubernetes pod name");
    if (!names.insert(name).second) return Bad(path, line, "name", name, "names a pod twice");
    pod.name = name;
    std::optional<int64_t> n = Count(cpu);
    if (!n) return Bad(path, line, "cpu_milli", cpu, "is not a whole number of milli-cores");
    pod.cpu_milli = *n;
    n = Count(memory);
    if (!n) return Bad(path, line, "memory_mib", memory, "is not a whole number of MiB");
    pod.memory_mib = *n;
    n = Count(gpus);
    if (!n) return Bad(path, line, "num_gpu", gpus, "is not a whole number of GPUs");
    pod.gpus = *n;
    n = Count(milli);
    if (!n || *n > 1000) {
      return Bad(path, line, "gpu_milli", milli, "is not a share of a GPU in milli (0 to 1000)");
    }
    if (pod.gpus == 0 && *n != 0) {
      return Bad(path, line, "gpu_milli", milli, "is a share of a GPU for a pod without GPUs");
    }
    if (pod.gpus > 0 && *n == 0) {
      return Bad(path, line, "gpu_milli", milli, "is no share of a GPU for a pod with GPUs");
    }
    pod.gpu_milli = *n;
    std::optional<std::vector<std::string>> models = GpuModels(spec);
    if (!models) return Bad(path, line, "gpu_spec", spec, "is not a |-separated list of models");
    pod.gpu_models = std::move(*models);
    if (!IsLabelValue(qos)) return Bad(path, line, "qos", qos, "is not a label value");
    pod.qos = qos;
    if (!IsLabelValue(phase)) return Bad(path, line, "pod_phase", phase, "is not a label value");
    pod.phase = phase;

    Result<std::optional<int64_t>> t = Seconds(path, line, "creation_time", created);
    if (!t.ok()) return t.status();
    pod.created = t.value();
    t = Seconds(path, line, "deletion_time", deleted);
    if (!t.ok()) return t.status();
    pod.deleted = t.value();
    t = Seconds(path, line, "scheduled_time", scheduled);
    if (!t.ok()) return t.status();
    pod.scheduled = t.value();
    if (!pod.created && (pod.deleted || pod.scheduled)) {
      return Bad(path, line, "creation_time", created,
                 "is empty but the pod has a deletion or scheduled time");
    }
    if (pod.created && pod.scheduled && *pod.scheduled < *pod.created) {
      return Bad(path, line, "scheduled_time", scheduled, "is before the creation time");
    }
    if (pod.created && pod.deleted && *pod.deleted < *pod.created) {
      return Bad(path, line, "deletion_time", deleted, "is before the creation time");
    }
    if (pod.scheduled && pod.deleted && *pod.deleted < *pod.scheduled) {
      return Bad(path, line, "deletion_time", deleted, "is before the scheduled time");
    }
    out.push_back(std::move(pod));
  }
  return Status::Ok();
}

json Meta(const std::string& name, const std::string& ns = "") {
  json meta = {{"name", name}, {"creationTimestamp", "2023-01-01T00:00:00Z"}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

json Queue(int64_t gpus) {
  const json unlimited = {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  return {{"apiVersion", "scheduling.run.ai/v2"},
          {"kind", "Queue"},
          {"metadata", Meta(kQueue)},
          {"spec",
           {{"resources",
             {{"gpu", {{"quota", gpus}, {"limit", -1}, {"overQuotaWeight", 1}}},
              {"cpu", unlimited},
              {"memory", unlimited}}}}}};
}

json Node(const OpenbNode& node) {
  json meta = Meta(node.name);
  if (!node.model.empty()) meta["labels"] = {{std::string(kOpenbGpuModelLabel), node.model}};
  json allocatable = {{"cpu", generate::CpuQuantity(node.cpu_milli)},
                      {"memory", fmt::format("{}Mi", node.memory_mib)},
                      {"pods", "110"}};
  if (node.gpus > 0) allocatable["nvidia.com/gpu"] = std::to_string(node.gpus);
  return {
      {"apiVersion", "v1"},
      {"kind", "Node"},
      {"metadata", meta},
      {"status",
       {{"allocatable", allocatable}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

// 470 -> "0.47", 5 -> "0.005": the decimal KAI's gpu-fraction annotation takes.
std::string Fraction(int64_t milli) {
  std::string digits = fmt::format("{:03d}", milli);
  while (digits.back() == '0') digits.pop_back();
  return "0." + digits;
}

// How long the pod runs once bound: what it ran in the trace, from scheduling to deletion; never
// scheduled, as long as its request stood. At least 1 s; none without a deletion time.
std::optional<int64_t> DurationOf(const OpenbPod& pod) {
  const std::optional<int64_t> start = pod.scheduled ? pod.scheduled : pod.created;
  if (!pod.deleted || !start) return std::nullopt;
  return std::max<int64_t>(1, *pod.deleted - *start);
}

json Pod(const OpenbPod& pod, int64_t first_created) {
  json meta = Meta(pod.name, kNamespace);
  json labels = {{"kai.scheduler/queue", kQueue}};
  if (!pod.qos.empty()) labels[kQosLabel] = pod.qos;
  if (!pod.phase.empty()) labels[kPhaseLabel] = pod.phase;
  json annotations = {{"simulation.quotient.dev/arrival",
                       fmt::format("{}s", pod.created ? *pod.created - first_created : 0)}};
  if (std::optional<int64_t> duration = DurationOf(pod)) {
    annotations["simulation.quotient.dev/duration"] = fmt::format("{}s", *duration);
  }
  json resources = {{"requests",
                     {{"cpu", generate::CpuQuantity(pod.cpu_milli)},
                      {"memory", fmt::format("{}Mi", pod.memory_mib)}}}};
  if (pod.gpus > 0 && pod.gpu_milli == 1000) {
    resources["limits"] = {{"nvidia.com/gpu", std::to_string(pod.gpus)}};
  } else if (pod.gpus > 0) {
    annotations[std::string(core::kGpuFractionAnnotation)] = Fraction(pod.gpu_milli);
    if (pod.gpus > 1) {
      annotations[std::string(core::kGpuFractionNumDevicesAnnotation)] = std::to_string(pod.gpus);
    }
  }
  meta["labels"] = labels;
  meta["annotations"] = annotations;
  const json container = {{"name", "main"}, {"resources", resources}};
  json spec = {{"schedulerName", "quotient"},
               {"priorityClassName", kPriorityClass},
               {"containers", json::array({container})}};
  if (!pod.gpu_models.empty()) {
    const json requirement = {
        {"key", std::string(kOpenbGpuModelLabel)}, {"operator", "In"}, {"values", pod.gpu_models}};
    const json term = {{"matchExpressions", json::array({requirement})}};
    spec["affinity"] = {{"nodeAffinity",
                         {{"requiredDuringSchedulingIgnoredDuringExecution",
                           {{"nodeSelectorTerms", json::array({term})}}}}}};
  }
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", meta}, {"spec", spec}};
}

}  // namespace

Result<OpenbTrace> ReadOpenb(const std::string& nodes_csv, const std::string& pods_csv,
                             std::optional<size_t> limit) {
  OpenbTrace trace;
  Result<std::string> nodes_text = ReadCsvText(nodes_csv);
  if (!nodes_text.ok()) return nodes_text.status();
  Result<std::string> pods_text = ReadCsvText(pods_csv);
  if (!pods_text.ok()) return pods_text.status();
  try {
    if (Status s = ReadNodes(nodes_csv, nodes_text.value(), trace.nodes); !s.ok()) return s;
    if (Status s = ReadPods(pods_csv, pods_text.value(), trace.pods); !s.ok()) return s;
  } catch (const io::error::base& e) {
    return Status::Error(std::string("reading the openb trace: ") + e.what());
  }
  // Pods without a creation time arrive at the start: they sort first (nullopt < any time).
  std::stable_sort(trace.pods.begin(), trace.pods.end(),
                   [](const OpenbPod& a, const OpenbPod& b) { return a.created < b.created; });
  if (limit && trace.pods.size() > *limit) trace.pods.resize(*limit);
  return trace;
}

void ForEachOpenbObject(const OpenbTrace& trace, const generate::ObjectVisitor& visit) {
  visit({{"apiVersion", "scheduling.k8s.io/v1"},
         {"kind", "PriorityClass"},
         {"metadata", Meta(kPriorityClass)},
         {"value", 50}});
  int64_t gpus = 0;
  for (const OpenbNode& node : trace.nodes) gpus += node.gpus;
  visit(Queue(gpus));
  for (const OpenbNode& node : trace.nodes) visit(Node(node));
  int64_t first_created = 0;
  for (const OpenbPod& pod : trace.pods) {
    if (pod.created) {
      first_created = *pod.created;  // the pods are sorted: the earliest
      break;
    }
  }
  for (const OpenbPod& pod : trace.pods) visit(Pod(pod, first_created));
}

}  // namespace quotient::traces
