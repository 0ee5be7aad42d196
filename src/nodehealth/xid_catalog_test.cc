// The golden test of the XID catalogue: spot rows against section 2.2 of
// ../shared/docs/gpu-isolation-and-health.md, the set of codes it lists, its agreement with the
// default policy, and the CSV reader's errors.
#include "nodehealth/xid_catalog.h"

#include <gtest/gtest.h>

#include <set>

#include "nodehealth/policy.h"

namespace quotient::nodehealth {
namespace {

struct Row {
  int code;
  XidSeverity severity;
  XidScope scope;
  const char* bucket;
  std::optional<Signal> signal;
  const char* action;
};

TEST(NodeHealthXidCatalogTest, TheEmbeddedCsvParses) {
  ASSERT_TRUE(DefaultXidCatalogStatus().ok()) << DefaultXidCatalogStatus().message();
  EXPECT_FALSE(DefaultXidCatalog().entries().empty());
}

TEST(NodeHealthXidCatalogTest, SpotRowsMatchTheDocTable) {
  // Each row: the doc's "Immediate" bucket and "Our action" column, our severity (fatal when
  // the action touches the GPU or node) and the policy row (section 2.6) that carries it out.
  const Row rows[] = {
      {79, XidSeverity::kFatal, XidScope::kNode, "RESTART_BM", Signal::kGpuLost, "power-cycle"},
      {48, XidSeverity::kFatal, XidScope::kGpu, "WORKFLOW_XID_48", Signal::kMemoryUncorrectable,
       "gpu-reset"},
      {63, XidSeverity::kInfo, XidScope::kGpu, "IGNORE", std::nullopt, "none"},
      {74, XidSeverity::kFatal, XidScope::kNode, "WORKFLOW_NVLINK_ERR", Signal::kNvlink,
       "gpu-reset"},
      {94, XidSeverity::kApp, XidScope::kApp, "RESTART_APP", std::nullopt, "restart-app"},
      {13, XidSeverity::kApp, XidScope::kApp, "RESTART_APP", std::nullopt, "none"},
      {154, XidSeverity::kInfo, XidScope::kGpu, "XID_154", Signal::kRecoveryAction, "stated"},
      {95, XidSeverity::kFatal, XidScope::kGpu, "RESET_GPU", Signal::kMemoryUncorrectable,
       "gpu-reset"},
      {119, XidSeverity::kFatal, XidScope::kGpu, "RESET_GPU", Signal::kGpuFatal, "gpu-reset"},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE("XID " + std::to_string(row.code));
    const XidEntry* e = DefaultXidCatalog().Find(row.code);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->severity, row.severity);
    EXPECT_EQ(e->scope, row.scope);
    EXPECT_EQ(e->bucket, row.bucket);
    EXPECT_EQ(e->signal, row.signal);
    EXPECT_EQ(e->action, row.action);
  }
  EXPECT_EQ(DefaultXidCatalog().Find(79)->name, "GPU has fallen off the bus");
}

TEST(NodeHealthXidCatalogTest, HoldsExactlyTheCodesOfTheDocTable) {
  // Section 2.2 lists these codes (ranges 119/120, 144-150, 156/157, 171/172 spelled out).
  std::set<int> doc = {8,   13,  31,  32,  43,  45,  46,  48,  54,  61,  62,  63,  64,  68,  74,
                       79,  92,  94,  95,  109, 110, 119, 120, 121, 136, 137, 140, 143, 144, 145,
                       146, 147, 148, 149, 150, 151, 154, 155, 156, 157, 158, 171, 172};
  std::set<int> ours;
  for (const auto& [code, entry] : DefaultXidCatalog().entries()) ours.insert(code);
  EXPECT_EQ(ours, doc);
  EXPECT_EQ(DefaultXidCatalog().Find(999), nullptr);  // NVML's "unknown XID"
}

TEST(NodeHealthXidCatalogTest, FatalRowsAgreeWithTheirPolicyRow) {
  // A fatal code's first action and scope are its policy row's first rung and scope, so the
  // condition message and the controller's ladder say the same thing by default.
  const Policy policy = DefaultPolicy();
  for (const auto& [code, e] : DefaultXidCatalog().entries()) {
    SCOPED_TRACE("XID " + std::to_string(code));
    if (e.severity != XidSeverity::kFatal) {
      // Events only; the recovery hint of 154 is judged from the action it states.
      EXPECT_TRUE(!e.signal || *e.signal == Signal::kRecoveryAction);
      continue;
    }
    ASSERT_TRUE(e.signal.has_value());
    const SignalPolicy& row = policy.Of(*e.signal);
    ASSERT_FALSE(row.ladder.empty());
    EXPECT_EQ(e.action, row.ladder.front());
    EXPECT_EQ(XidScopeName(e.scope), ScopeName(row.scope));
  }
}

TEST(NodeHealthXidCatalogTest, CsvErrorsNameTheLineAndColumn) {
  const std::string header = "code,name,severity,scope,bucket,signal,action\n";
  auto error = [&](const std::string& row) { return ParseXidCatalogCsv(header + row).message(); };
  EXPECT_EQ(error("79,Fell off,deadly,node,RESTART_BM,gpu-lost,power-cycle"),
            "xid catalog line 2: severity 'deadly' is not fatal, app or info");
  EXPECT_EQ(error("79,Fell off,fatal,rack,RESTART_BM,gpu-lost,power-cycle"),
            "xid catalog line 2: scope 'rack' is not gpu, node or app");
  EXPECT_EQ(error("x79,Fell off,fatal,node,RESTART_BM,gpu-lost,power-cycle"),
            "xid catalog line 2: code 'x79' is not a positive integer");
  EXPECT_EQ(error("79,Fell, off,fatal,node,RESTART_BM,gpu-lost,power-cycle"),
            "xid catalog line 2: expected 7 columns, found 8");
  EXPECT_EQ(error("79,Fell off,fatal,node,RESTART_BM,gpu-gone,power-cycle"),
            "xid catalog line 2: signal 'gpu-gone' is not a policy signal or 'event'");
  EXPECT_EQ(error("79,Fell off,fatal,node,RESTART_BM,gpu-lost,pray"),
            "xid catalog line 2: action 'pray' is not known");
  EXPECT_EQ(error("79,A,fatal,node,B,gpu-lost,none\n79,A,fatal,node,B,gpu-lost,none"),
            "xid catalog line 3: code 79 appears twice");
  EXPECT_EQ(ParseXidCatalogCsv("# only a comment\n").message(), "xid catalog: no header line");
}

}  // namespace
}  // namespace quotient::nodehealth
