#include "kube/text_formats.h"

#include "core/time_text.h"

#include <gtest/gtest.h>

namespace quotient::kube {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using namespace std::chrono_literals;

core::Time At(std::chrono::year_month_day date, seconds time_of_day) {
  return core::Time(sys_days(date) + time_of_day);
}

TEST(ParseRfc3339, ReadsUtcFractionsAndOffsets) {
  const core::Time expected = At(2025y / 1 / 2, hours(3) + minutes(4) + seconds(5));
  EXPECT_EQ(ParseRfc3339("2025-01-02T03:04:05Z").value(), expected);
  EXPECT_EQ(ParseRfc3339("2025-01-02T03:04:05.999999Z").value(), expected);
  EXPECT_EQ(ParseRfc3339("2025-01-02T05:04:05+02:00").value(), expected);
  EXPECT_EQ(ParseRfc3339("2025-01-01T22:34:05-04:30").value(), expected);
  EXPECT_EQ(ParseRfc3339("1970-01-01T00:00:00Z").value().time_since_epoch().count(), 0);
}

TEST(ParseRfc3339, RejectsMalformedTimestamps) {
  for (const char* bad : {"", "2025-01-02", "2025-01-02T03:04:05", "2025-13-02T03:04:05Z",
                          "2025-02-30T03:04:05Z", "2025-01-02T24:00:00Z", "2025-01-02 03:04:05Z",
                          "2025-01-02T03:04:05.Z", "2025-01-02T03:04:05+0200", "yesterday"}) {
    EXPECT_FALSE(ParseRfc3339(bad).ok()) << bad;
  }
}

TEST(ParseGoDuration, ReadsGoForms) {
  EXPECT_EQ(ParseGoDuration("10m").value(), 600s);
  EXPECT_EQ(ParseGoDuration("1h30m").value(), 5400s);
  EXPECT_EQ(ParseGoDuration("45s").value(), 45s);
  EXPECT_EQ(ParseGoDuration("0").value(), 0s);
  EXPECT_EQ(ParseGoDuration("1.5h").value(), 5400s);
  EXPECT_EQ(ParseGoDuration("1500ms").value(), 1s);  // truncated to whole seconds
  EXPECT_EQ(ParseGoDuration("2m30s500ms").value(), 150s);
  EXPECT_EQ(ParseGoDuration("-5s").value(), -5s);
  EXPECT_EQ(ParseGoDuration("1000000us").value(), 1s);
}

TEST(ParseGoDuration, NanosecondsAsGoKeepsThem) {
  using std::chrono::nanoseconds;
  EXPECT_EQ(core::ParseGoDurationNanos("500ms").value(), nanoseconds(500'000'000));
  EXPECT_EQ(core::ParseGoDurationNanos("-1.5us").value(), nanoseconds(-1500));
  EXPECT_EQ(core::ParseGoDurationNanos("0").value(), nanoseconds(0));
  EXPECT_EQ(ParseGoDuration("-500ms").value(), 0s);  // toward zero
  EXPECT_FALSE(core::ParseGoDurationNanos("5").ok());
}

TEST(ParseGoDuration, RejectsMalformedDurations) {
  for (const char* bad : {"", "10", "10x", "m", "1h30", "ten minutes", "1.h.m", "-", "3000000h"}) {
    EXPECT_FALSE(ParseGoDuration(bad).ok()) << bad;
  }
}

TEST(ParseDecimalInteger, ChecksFormAndRange) {
  EXPECT_EQ(ParseDecimalInteger("42", 0, 100).value(), 42);
  EXPECT_EQ(ParseDecimalInteger("-7", -10, 10).value(), -7);
  EXPECT_FALSE(ParseDecimalInteger("2.0", 0, 100).ok());
  EXPECT_FALSE(ParseDecimalInteger("1e2", 0, 1000).ok());
  EXPECT_FALSE(ParseDecimalInteger("101", 0, 100).ok());
  EXPECT_FALSE(ParseDecimalInteger("99999999999999999999999", 0, 100).ok());
}

TEST(ParseShiftedDecimal, ShiftsTheExponentExactly) {
  const auto parse = [](std::string_view text, int shift, core::Scale scale) {
    return ParseShiftedDecimal(text, shift, scale, core::Rounding::kDown);
  };
  EXPECT_EQ(parse("1.5", 6, core::Scale::kUnit).value().value(), 1500000);
  EXPECT_EQ(parse("0.1", 6, core::Scale::kUnit).value().value(), 100000);
  EXPECT_EQ(parse("1e3", 6, core::Scale::kUnit).value().value(), 1000000000);
  EXPECT_EQ(parse("2.5e-1", 0, core::Scale::kMilli).value().value(), 250);
  EXPECT_EQ(parse("0.0000015", 6, core::Scale::kUnit).value().value(), 1);  // 1.5 rounds down
  EXPECT_EQ(parse("-1", 0, core::Scale::kMilli).value().value(), -1000);
  EXPECT_FALSE(parse("1Gi", 0, core::Scale::kUnit).ok());
  EXPECT_FALSE(parse("0x10", 0, core::Scale::kUnit).ok());
  EXPECT_FALSE(parse(".inf", 0, core::Scale::kUnit).ok());
  EXPECT_FALSE(parse("1e20", 6, core::Scale::kUnit).ok());  // out of int64 range
}

}  // namespace
}  // namespace quotient::kube

namespace quotient::kube {
namespace {

// Go's time.Duration.String() for whole seconds.
TEST(FormatGoDuration, WritesAsGoDoes) {
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(0)), "0s");
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(45)), "45s");
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(600)), "10m0s");
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(5400)), "1h30m0s");
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(3605)), "1h0m5s");
  EXPECT_EQ(core::FormatGoDuration(std::chrono::seconds(-5)), "-5s");
}

}  // namespace
}  // namespace quotient::kube
