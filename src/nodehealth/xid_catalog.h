// The XID catalogue as data: what each NVIDIA XID code means and what we do about it.
//
// The rows live in xid_catalog.csv (this folder), copied into the library at build time, so a
// change to the table is a change to one data file that the golden test (xid_catalog_test.cc)
// checks. The evaluation looks codes up here; codes the catalogue lacks are "unknown" and follow
// the policy's xid-unknown signal.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "nodehealth/signals.h"

namespace quotient::nodehealth {

enum class XidSeverity { kFatal, kApp, kInfo };
enum class XidScope { kGpu, kNode, kApp };

struct XidEntry {
  int code = 0;
  std::string name;
  XidSeverity severity = XidSeverity::kInfo;
  XidScope scope = XidScope::kGpu;
  std::string bucket;            // NVIDIA's immediate resolution bucket, e.g. RESTART_BM
  std::optional<Signal> signal;  // the policy row; none for Event-only codes
  std::string action;            // our first action, a ladder action name
};

class XidCatalog {
 public:
  const XidEntry* Find(int code) const;
  const std::map<int, XidEntry>& entries() const { return entries_; }

 private:
  friend Result<XidCatalog> ParseXidCatalogCsv(std::string_view csv);
  std::map<int, XidEntry> entries_;
};

// Reads the CSV format of xid_catalog.csv ('#' comment lines, a header line, seven columns); an
// error names the line and the column at fault.
Result<XidCatalog> ParseXidCatalogCsv(std::string_view csv);

// The embedded xid_catalog.csv, parsed once. Should it not parse (a broken build, which the
// golden test catches), the catalogue is empty and every XID counts as unknown, the cautious
// reading; DefaultXidCatalogStatus says why, so the agent can refuse to start.
const XidCatalog& DefaultXidCatalog();
Status DefaultXidCatalogStatus();
std::string_view EmbeddedXidCatalogCsv();

std::string_view XidSeverityName(XidSeverity severity);
std::string_view XidScopeName(XidScope scope);

}  // namespace quotient::nodehealth
