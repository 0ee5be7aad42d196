#include "nodehealth/gpu_health.h"

#include <nlohmann/json.hpp>

namespace quotient::nodehealth {
namespace {

using nlohmann::json;

std::string JoinReasons(const std::vector<std::string>& reasons) {
  std::string joined;
  for (const std::string& r : reasons) joined += (joined.empty() ? "" : ",") + r;
  return joined;
}

std::vector<std::string> SplitReasons(const std::string& joined) {
  std::vector<std::string> reasons;
  size_t start = 0;
  while (start < joined.size()) {
    size_t comma = joined.find(',', start);
    if (comma == std::string::npos) comma = joined.size();
    if (comma > start) reasons.push_back(joined.substr(start, comma - start));
    start = comma + 1;
  }
  return reasons;
}

// One list of the annotation; an error names the entry.
Status ReadList(const json& doc, const char* name, GpuHealthState state,
                std::vector<GpuHealth>& out) {
  if (!doc.contains(name) || doc[name].is_null()) return Status::Ok();
  const json& list = doc[name];
  const std::string where = std::string("GPU health annotation ") + name;
  if (!list.is_array()) return Status::Error(where + ": not a list");
  for (size_t i = 0; i < list.size(); ++i) {
    const json& item = list[i];
    if (!item.is_object() || !item.contains("index") || !item["index"].is_number_integer() ||
        !item.contains("uuid") || !item["uuid"].is_string()) {
      return Status::Error(where + "[" + std::to_string(i) +
                           "]: needs an integer index and a uuid");
    }
    GpuHealth g;
    g.index = item["index"].get<int>();
    g.uuid = item["uuid"].get<std::string>();
    g.state = state;
    if (item.contains("bdf") && item["bdf"].is_string()) g.bdf = item["bdf"].get<std::string>();
    if (item.contains("reason") && item["reason"].is_string()) {
      g.reasons = SplitReasons(item["reason"].get<std::string>());
    }
    out.push_back(std::move(g));
  }
  return Status::Ok();
}

}  // namespace

std::string GpuHealthAnnotation(const std::vector<GpuHealth>& gpus) {
  json unhealthy = json::array();
  json unknown = json::array();
  for (const GpuHealth& g : gpus) {
    json entry = {{"index", g.index}, {"uuid", g.uuid}, {"bdf", g.bdf}};
    if (g.state == GpuHealthState::kUnhealthy) {
      entry["reason"] = JoinReasons(g.reasons);
      unhealthy.push_back(std::move(entry));
    } else if (g.state == GpuHealthState::kUnknown) {
      unknown.push_back(std::move(entry));
    }
  }
  return json{{"unhealthy", std::move(unhealthy)}, {"unknown", std::move(unknown)}}.dump();
}

Result<std::vector<GpuHealth>> ParseGpuHealthAnnotation(std::string_view value) {
  using Gpus = std::vector<GpuHealth>;
  const json doc = json::parse(value, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Result<Gpus>::Error("GPU health annotation: not a JSON object");
  }
  Gpus gpus;
  Status status = ReadList(doc, "unhealthy", GpuHealthState::kUnhealthy, gpus);
  if (status.ok()) status = ReadList(doc, "unknown", GpuHealthState::kUnknown, gpus);
  if (!status.ok()) return status;
  return gpus;
}

}  // namespace quotient::nodehealth
