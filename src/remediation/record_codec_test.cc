#include "remediation/record_codec.h"

#include <gtest/gtest.h>

namespace quotient::remediation {
namespace {

Time At(int minutes) {
  return Time(std::chrono::sys_days(std::chrono::year(2025) / 1 / 1)) +
         std::chrono::minutes(minutes);
}

TEST(RecordCodec, AFullRecordRoundTrips) {
  NodeRecord r;
  r.state = State::kValidating;
  r.since = At(20);
  r.incident = "20250101-000000";
  r.incident_opened = At(0);
  r.fault_class = "GpuXidFatal";
  r.fault_reason = "Xid79";
  r.rung = 1;
  r.attempts = 3;
  r.step = "validate";
  r.step_started = At(20);
  r.hold_down_since = At(25);
  r.incidents = {At(-600), At(0)};
  r.backoff_until = At(-500);
  r.waiting = "flap backoff";
  r.cancel_reason = "";
  r.evidence = {{"GpuXidFatal", "Xid79", "[gpu=GPU-1 code=79] fell off the bus", At(-1)}};
  r.history = {{At(0), State::kSuspect, "GpuXidFatal/Xid79 True"},
               {At(20), State::kValidating, "reboot succeeded; validating"}};
  const Result<NodeRecord> back = DecodeRecord(EncodeRecord(r));
  ASSERT_TRUE(back.ok()) << back.message();
  EXPECT_EQ(*back, r);
}

TEST(RecordCodec, AHealthyRecordIsSmall) {
  EXPECT_EQ(EncodeRecord(NodeRecord{}), R"({"state":"healthy"})");
  const Result<NodeRecord> back = DecodeRecord("{}");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, NodeRecord{});
}

TEST(RecordCodec, UnknownFieldsAreIgnored) {
  const Result<NodeRecord> r = DecodeRecord(R"({"state":"escalated","ticket":"RMA-1"})");
  ASSERT_TRUE(r.ok()) << r.message();
  EXPECT_EQ(r->state, State::kEscalated);
}

TEST(RecordCodec, ErrorsNameTheField) {
  EXPECT_EQ(DecodeRecord("[]").message(), "quotient.dev/remediation: not a JSON object");
  EXPECT_EQ(DecodeRecord(R"({"state":"sick"})").message(),
            "quotient.dev/remediation: field \"state\": unknown state \"sick\"");
  EXPECT_EQ(DecodeRecord(R"({"rung":"one"})").message(),
            "quotient.dev/remediation: field \"rung\": expected an integer");
  EXPECT_EQ(
      DecodeRecord(R"({"history":[{"at":"2025-01-01T00:00:00Z"},{"at":"yesterday"}]})").message(),
      "quotient.dev/remediation: field \"history[1].at\": not an RFC 3339 timestamp "
      "(\"yesterday\")");
  EXPECT_EQ(DecodeRecord(R"({"incidents":["2025-01-01T00:00:00Z", 5]})").message(),
            "quotient.dev/remediation: field \"incidents[1]\": expected a timestamp");
}

}  // namespace
}  // namespace quotient::remediation
