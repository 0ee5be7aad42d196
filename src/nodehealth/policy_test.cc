// The fault-to-action policy: the defaults of section 2.6's table, a ConfigMap's overrides, and
// errors that name the key and field at fault.
#include "nodehealth/policy.h"

#include <gtest/gtest.h>

namespace quotient::nodehealth {
namespace {

using Ladder = std::vector<std::string>;

TEST(NodeHealthPolicyTest, DefaultsFollowTheDocTable) {
  const Policy p = DefaultPolicy();
  EXPECT_EQ(p.healthy_polls_to_clear, 3);
  // XID 79 / GPU lost: immediate, node, power-cycle then RMA.
  EXPECT_EQ(p.Of(Signal::kGpuLost).confirm, ConfirmKind::kImmediate);
  EXPECT_EQ(p.Of(Signal::kGpuLost).scope, Scope::kNode);
  EXPECT_EQ(p.Of(Signal::kGpuLost).ladder, (Ladder{"power-cycle", "escalate"}));
  // XID 46/62/109/...: reset, reboot, RMA.
  EXPECT_EQ(p.Of(Signal::kGpuFatal).ladder, (Ladder{"gpu-reset", "reboot", "escalate"}));
  EXPECT_EQ(p.Of(Signal::kGpuFatal).scope, Scope::kGpu);
  // Remap pending: the GPU only, reset at the next drain.
  EXPECT_EQ(p.Of(Signal::kRemapPending).scope, Scope::kGpu);
  EXPECT_EQ(p.Of(Signal::kRemapPending).ladder, (Ladder{"gpu-reset"}));
  // PCIe width below max: 2 consecutive polls.
  EXPECT_EQ(p.Of(Signal::kPcieWidth).confirm, ConfirmKind::kPolls);
  EXPECT_EQ(p.Of(Signal::kPcieWidth).ConfirmPolls(), 2);
  // PCIe replay: condition when sustained 3 windows.
  EXPECT_EQ(p.Of(Signal::kPcieReplay).confirm, ConfirmKind::kWindows);
  EXPECT_EQ(p.Of(Signal::kPcieReplay).count, 3);
  // IB: not ACTIVE for 3 polls, rate below expected for 3 polls, link_downed immediate.
  EXPECT_EQ(p.Of(Signal::kIbPort).ConfirmPolls(), 3);
  EXPECT_EQ(p.Of(Signal::kIbRate).ConfirmPolls(), 3);
  EXPECT_EQ(p.Of(Signal::kIbRate).ladder, (Ladder{"port-reset", "escalate"}));
  EXPECT_EQ(p.Of(Signal::kIbLinkDowned).ConfirmPolls(), 1);
  // Symbol errors: more than 120 an hour.
  EXPECT_EQ(p.Of(Signal::kIbSymbolErrors).window_seconds, 3600);
  EXPECT_EQ(p.Of(Signal::kIbSymbolErrors).max_per_window, 120);
  // NVML unresponsive: nothing automatic.
  EXPECT_TRUE(p.Of(Signal::kDriverUnresponsive).ladder.empty());
  // XID 154 / recovery hint: the stated action.
  EXPECT_EQ(p.Of(Signal::kRecoveryAction).ladder.front(), "stated");
}

TEST(NodeHealthPolicyTest, AnOverrideChangesOnlyWhatItNames) {
  Result<Policy> p = ParsePolicyYaml(R"(
healthy_polls_to_clear: 5
signals:
  pcie-width:
    count: 4
  ib-rate:
    ladder: [escalate]
  pcie-replay: {window_seconds: 60, max_per_window: 8}
xid_signals:
  13: gpu-fatal
  119: event
)");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->healthy_polls_to_clear, 5);
  EXPECT_EQ(p->Of(Signal::kPcieWidth).ConfirmPolls(), 4);
  EXPECT_EQ(p->Of(Signal::kPcieWidth).ladder, (Ladder{"reboot", "escalate"}));  // untouched
  EXPECT_EQ(p->Of(Signal::kIbRate).ladder, (Ladder{"escalate"}));
  EXPECT_EQ(p->Of(Signal::kIbRate).ConfirmPolls(), 3);  // untouched
  EXPECT_EQ(p->Of(Signal::kPcieReplay).window_seconds, 60);
  EXPECT_EQ(p->Of(Signal::kPcieReplay).max_per_window, 8);
  EXPECT_EQ(p->Of(Signal::kPcieReplay).count, 3);
  EXPECT_EQ(p->xid_signals.at(13), Signal::kGpuFatal);
  EXPECT_EQ(p->xid_signals.at(119), std::nullopt);
  EXPECT_EQ(p->Of(Signal::kGpuLost).ladder, DefaultPolicy().Of(Signal::kGpuLost).ladder);
}

TEST(NodeHealthPolicyTest, ConfirmCanBeChangedBetweenImmediateAndPolls) {
  Result<Policy> p = ParsePolicyYaml(
      "signals: {gpu-fatal: {confirm: polls, count: 2}, "
      "pcie-width: {confirm: immediate}}");
  ASSERT_TRUE(p.ok()) << p.message();
  EXPECT_EQ(p->Of(Signal::kGpuFatal).ConfirmPolls(), 2);
  EXPECT_EQ(p->Of(Signal::kPcieWidth).ConfirmPolls(), 1);
}

TEST(NodeHealthPolicyTest, AnEmptyDocumentIsTheDefaults) {
  Result<Policy> p = ParsePolicyYaml("");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(PolicyToYaml(*p), PolicyToYaml(DefaultPolicy()));
}

TEST(NodeHealthPolicyTest, TheWrittenPolicyReadsBackTheSame) {
  Policy custom = *ParsePolicyYaml(
      "signals: {nvlink: {ladder: [reboot]}}\nxid_signals: {13: "
      "gpu-fatal, 43: event}");
  const std::string yaml = PolicyToYaml(custom);
  Result<Policy> again = ParsePolicyYaml(yaml, Policy{});  // from nothing: every key is there
  ASSERT_TRUE(again.ok()) << again.message() << "\n" << yaml;
  EXPECT_EQ(PolicyToYaml(*again), yaml);
}

TEST(NodeHealthPolicyTest, ErrorsNameTheKeyAndField) {
  auto error = [](const std::string& yaml) { return ParsePolicyYaml(yaml).message(); };
  EXPECT_EQ(error("signals: {pcie-width: {confrim: polls}}"),
            "signals.pcie-width: unknown field 'confrim'");
  EXPECT_EQ(error("signals: {pcie-width: {count: two}}"),
            "signals.pcie-width.count: must be an integer in [1, 2147483647], got 'two'");
  EXPECT_EQ(error("signals: {pcie-width: {count: 0}}"),
            "signals.pcie-width.count: must be an integer in [1, 2147483647], got '0'");
  EXPECT_EQ(error("signals: {gpu-lost: {scope: rack}}"),
            "signals.gpu-lost.scope: must be gpu or node, got 'rack'");
  EXPECT_EQ(error("signals: {gpu-lost: {confirm: windows}}"),
            "signals.gpu-lost.confirm: must be immediate or polls, got 'windows'");
  EXPECT_EQ(error("signals: {pcie-replay: {confirm: polls}}"),
            "signals.pcie-replay.confirm: a rate signal is confirmed by windows, got 'polls'");
  EXPECT_EQ(error("signals: {gpu-lost: {count: 2}}"),
            "signals.gpu-lost.count: applies to confirm: polls or windows");
  EXPECT_EQ(error("signals: {gpu-lost: {window_seconds: 60}}"),
            "signals.gpu-lost.window_seconds: applies only to rate signals");
  EXPECT_EQ(error("signals: {gpu-lost: {ladder: [power-cycle, rebot]}}"),
            "signals.gpu-lost.ladder[1]: unknown action 'rebot'");
  EXPECT_EQ(error("signals: {gpu-lost: {ladder: [stated]}}"),
            "signals.gpu-lost.ladder[0]: 'stated' applies only to recovery-action");
  EXPECT_EQ(error("signals: {gpu-lost: {ladder: reboot}}"),
            "signals.gpu-lost.ladder: must be a list of actions, got 'reboot'");
  EXPECT_EQ(error("signals: {gpu-gone: {}}"), "signals.gpu-gone: unknown signal");
  EXPECT_EQ(error("xid_signals: {thirteen: gpu-fatal}"),
            "xid_signals: key 'thirteen' is not an XID code");
  EXPECT_EQ(error("xid_signals: {13: panic}"),
            "xid_signals.13: 'panic' is not a signal or 'event'");
  EXPECT_EQ(error("healthy_polls_to_clear: 0"),
            "healthy_polls_to_clear: must be an integer in [1, 2147483647], got '0'");
  EXPECT_EQ(error("sbe_burst: {window_seconds: -5}"),
            "sbe_burst.window_seconds: must be an integer in [1, 2147483647], got '-5'");
  EXPECT_EQ(error("hysteresis: 3"), "policy: unknown field 'hysteresis'");
  EXPECT_EQ(error("- just\n- a list"), "policy: must be a map, got 'a list'");
  EXPECT_TRUE(error("signals: {pcie-width: [unclosed").starts_with("policy: not YAML: "));
}

}  // namespace
}  // namespace quotient::nodehealth
