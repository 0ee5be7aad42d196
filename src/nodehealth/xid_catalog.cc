#include "nodehealth/xid_catalog.h"

#include <charconv>
#include <vector>

namespace quotient::nodehealth {

extern const std::string_view kXidCatalogCsv;  // xid_catalog_data.cc, generated

namespace {

constexpr std::string_view kHeader = "code,name,severity,scope,bucket,signal,action";

std::vector<std::string_view> SplitCommas(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t comma = line.find(','); comma != std::string_view::npos;
       comma = line.find(',', start)) {
    fields.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  fields.push_back(line.substr(start));
  return fields;
}

std::optional<XidSeverity> ParseSeverity(std::string_view text) {
  if (text == "fatal") return XidSeverity::kFatal;
  if (text == "app") return XidSeverity::kApp;
  if (text == "info") return XidSeverity::kInfo;
  return std::nullopt;
}

std::optional<XidScope> ParseScope(std::string_view text) {
  if (text == "gpu") return XidScope::kGpu;
  if (text == "node") return XidScope::kNode;
  if (text == "app") return XidScope::kApp;
  return std::nullopt;
}

// One data row; `where` is "line N" for messages.
Result<XidEntry> ParseRow(std::string_view line, const std::string& where) {
  const std::vector<std::string_view> f = SplitCommas(line);
  if (f.size() != 7) {
    return Result<XidEntry>::Error(where + ": expected 7 columns, found " +
                                   std::to_string(f.size()));
  }
  XidEntry entry;
  const auto [end, ec] = std::from_chars(f[0].data(), f[0].data() + f[0].size(), entry.code);
  if (ec != std::errc() || end != f[0].data() + f[0].size() || entry.code <= 0) {
    return Result<XidEntry>::Error(where + ": code '" + std::string(f[0]) +
                                   "' is not a positive integer");
  }
  entry.name = f[1];
  const std::optional<XidSeverity> severity = ParseSeverity(f[2]);
  if (!severity) {
    return Result<XidEntry>::Error(where + ": severity '" + std::string(f[2]) +
                                   "' is not fatal, app or info");
  }
  entry.severity = *severity;
  const std::optional<XidScope> scope = ParseScope(f[3]);
  if (!scope) {
    return Result<XidEntry>::Error(where + ": scope '" + std::string(f[3]) +
                                   "' is not gpu, node or app");
  }
  entry.scope = *scope;
  entry.bucket = f[4];
  if (f[5] != "event") {
    entry.signal = ParseSignal(f[5]);
    if (!entry.signal) {
      return Result<XidEntry>::Error(where + ": signal '" + std::string(f[5]) +
                                     "' is not a policy signal or 'event'");
    }
  }
  entry.action = f[6];
  if (!IsKnownAction(entry.action)) {
    return Result<XidEntry>::Error(where + ": action '" + entry.action + "' is not known");
  }
  if (entry.name.empty() || entry.bucket.empty()) {
    return Result<XidEntry>::Error(where + ": name and bucket must not be empty");
  }
  return entry;
}

struct DefaultCatalog {
  XidCatalog catalog;
  Status status;
};

const DefaultCatalog& Default() {
  static const DefaultCatalog kDefault = [] {
    Result<XidCatalog> parsed = ParseXidCatalogCsv(kXidCatalogCsv);
    if (!parsed.ok()) return DefaultCatalog{XidCatalog(), parsed.status()};
    return DefaultCatalog{std::move(parsed).value(), Status::Ok()};
  }();
  return kDefault;
}

}  // namespace

const XidEntry* XidCatalog::Find(int code) const {
  auto it = entries_.find(code);
  return it == entries_.end() ? nullptr : &it->second;
}

Result<XidCatalog> ParseXidCatalogCsv(std::string_view csv) {
  XidCatalog catalog;
  bool header_seen = false;
  int line_number = 0;
  while (!csv.empty()) {
    const size_t newline = csv.find('\n');
    std::string_view line = csv.substr(0, newline);
    csv = newline == std::string_view::npos ? std::string_view() : csv.substr(newline + 1);
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    const std::string where = "xid catalog line " + std::to_string(line_number);
    if (!header_seen) {
      if (line != kHeader) {
        return Result<XidCatalog>::Error(where + ": expected the header '" + std::string(kHeader) +
                                         "'");
      }
      header_seen = true;
      continue;
    }
    Result<XidEntry> entry = ParseRow(line, where);
    if (!entry.ok()) return entry.status();
    const int code = entry->code;
    if (!catalog.entries_.emplace(code, std::move(entry).value()).second) {
      return Result<XidCatalog>::Error(where + ": code " + std::to_string(code) + " appears twice");
    }
  }
  if (!header_seen) return Result<XidCatalog>::Error("xid catalog: no header line");
  return catalog;
}

const XidCatalog& DefaultXidCatalog() { return Default().catalog; }
Status DefaultXidCatalogStatus() { return Default().status; }
std::string_view EmbeddedXidCatalogCsv() { return kXidCatalogCsv; }

std::string_view XidSeverityName(XidSeverity severity) {
  switch (severity) {
    case XidSeverity::kFatal:
      return "fatal";
    case XidSeverity::kApp:
      return "app";
    case XidSeverity::kInfo:
      return "info";
  }
  return "info";
}

std::string_view XidScopeName(XidScope scope) {
  switch (scope) {
    case XidScope::kGpu:
      return "gpu";
    case XidScope::kNode:
      return "node";
    case XidScope::kApp:
      return "app";
  }
  return "gpu";
}

}  // namespace quotient::nodehealth
