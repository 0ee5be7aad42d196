#include "core/quantity.h"

#include <gtest/gtest.h>

namespace quotient::core {
namespace {

int64_t Milli(std::string_view text, Rounding rounding = Rounding::kUp) {
  Result<Quantity> q = ParseQuantity(text, Scale::kMilli, rounding);
  EXPECT_TRUE(q.ok()) << text << ": " << q.message();
  return q.ok() ? q->value() : -999;
}

int64_t Units(std::string_view text, Rounding rounding = Rounding::kUp) {
  Result<Quantity> q = ParseQuantity(text, Scale::kUnit, rounding);
  EXPECT_TRUE(q.ok()) << text << ": " << q.message();
  return q.ok() ? q->value() : -999;
}

std::string ErrorOf(std::string_view text, Scale scale = Scale::kMilli) {
  Result<Quantity> q = ParseQuantity(text, scale, Rounding::kUp);
  return q.ok() ? "parsed" : q.message();
}

TEST(ParseQuantity, PlainAndDecimalNumbers) {
  EXPECT_EQ(Milli("8"), 8000);
  EXPECT_EQ(Milli("0.5"), 500);
  EXPECT_EQ(Milli("1.5"), 1500);
  EXPECT_EQ(Milli(".5"), 500);
  EXPECT_EQ(Milli("5."), 5000);
  EXPECT_EQ(Milli("0"), 0);
  EXPECT_EQ(Milli("000012"), 12000);
  EXPECT_EQ(Milli("+3"), 3000);
  EXPECT_EQ(Milli("-3"), -3000);
}

TEST(ParseQuantity, DecimalSiSuffixes) {
  EXPECT_EQ(Milli("100m"), 100);
  EXPECT_EQ(Milli("1k"), 1'000'000);
  EXPECT_EQ(Units("500M"), 500'000'000);
  EXPECT_EQ(Units("2G"), 2'000'000'000);
  EXPECT_EQ(Units("3T"), 3'000'000'000'000);
  EXPECT_EQ(Units("1P"), 1'000'000'000'000'000);
  EXPECT_EQ(Units("2E"), 2'000'000'000'000'000'000);
  EXPECT_EQ(Milli("250000u"), 250);
  EXPECT_EQ(Milli("1000000n"), 1);
}

TEST(ParseQuantity, BinarySiSuffixes) {
  EXPECT_EQ(Units("1Ki"), 1024);
  EXPECT_EQ(Units("2Mi"), 2 * 1024 * 1024);
  EXPECT_EQ(Units("2Gi"), 2LL * 1024 * 1024 * 1024);
  EXPECT_EQ(Units("1Ti"), 1LL << 40);
  EXPECT_EQ(Units("1Pi"), 1LL << 50);
  EXPECT_EQ(Units("1Ei"), 1LL << 60);
  EXPECT_EQ(Units("1.5Gi"), 3LL * 512 * 1024 * 1024);
}

TEST(ParseQuantity, DecimalExponents) {
  EXPECT_EQ(Milli("1e3"), 1'000'000);
  EXPECT_EQ(Milli("1E3"), 1'000'000);
  EXPECT_EQ(Milli("2e-3"), 2);
  EXPECT_EQ(Milli("1.5e+2"), 150'000);
  EXPECT_EQ(Units("12e6"), 12'000'000);
}

TEST(ParseQuantity, RequestsRoundUpCapacityRoundsDown) {
  // 0.1m is finer than a millicore.
  EXPECT_EQ(Milli("0.1m", Rounding::kUp), 1);
  EXPECT_EQ(Milli("0.1m", Rounding::kDown), 0);
  EXPECT_EQ(Milli("1.0001", Rounding::kUp), 1001);
  EXPECT_EQ(Milli("1.0001", Rounding::kDown), 1000);
  // Half a byte.
  EXPECT_EQ(Units("0.5", Rounding::kUp), 1);
  EXPECT_EQ(Units("0.5", Rounding::kDown), 0);
  // 1.5Ki is exact; 1.0001Ki is not.
  EXPECT_EQ(Units("1.0001Ki", Rounding::kUp), 1025);
  EXPECT_EQ(Units("1.0001Ki", Rounding::kDown), 1024);
  // Rounding is toward +inf for kUp and -inf for kDown, also for negative values.
  EXPECT_EQ(Milli("-0.0005", Rounding::kUp), 0);
  EXPECT_EQ(Milli("-0.0005", Rounding::kDown), -1);
  // Far below one unit.
  EXPECT_EQ(Milli("1e-40", Rounding::kUp), 1);
  EXPECT_EQ(Milli("1e-40", Rounding::kDown), 0);
}

TEST(ParseQuantity, ExactWithoutFloatingPoint) {
  // 0.1 + 0.2 style values land exactly on the milli grid.
  EXPECT_EQ(Milli("0.1"), 100);
  EXPECT_EQ(Milli("0.3"), 300);
  EXPECT_EQ(Milli("0.001"), 1);
  EXPECT_EQ(Units("1000000000000000001"), 1'000'000'000'000'000'001);
}

TEST(ParseQuantity, RejectsMalformedText) {
  for (std::string_view bad : {"", "abc", "1.5.5", "+", "-", ".", "1e", "Ki", "1KiB", "1 Gi",
                               "1ee3", "0x10", "1e3.5", "--1", "1mi", "m"}) {
    EXPECT_NE(ErrorOf(bad), "parsed") << bad;
  }
  EXPECT_NE(ErrorOf("abc").find("not a quantity"), std::string::npos);
}

TEST(ParseQuantity, RejectsValuesOutsideInt64) {
  EXPECT_NE(ErrorOf("10E").find("out of range"), std::string::npos);  // 10^22 milli
  EXPECT_NE(ErrorOf("8Ei", Scale::kUnit).find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("1e100").find("out of range"), std::string::npos);
  EXPECT_NE(ErrorOf("1234567890123456789012345678901234567890").find("out of range"),
            std::string::npos);
  // The largest representable milli value still parses.
  EXPECT_EQ(Milli("9223372036854775.807"), INT64_MAX);
  EXPECT_NE(ErrorOf("9223372036854775.808").find("out of range"), std::string::npos);
}

TEST(QuantityArithmetic, SaturatesInsteadOfWrapping) {
  const Quantity big = Quantity::Max();
  EXPECT_EQ((big + Quantity(1)).value(), INT64_MAX);
  EXPECT_EQ((Quantity(INT64_MIN) - Quantity(1)).value(), INT64_MIN);
  EXPECT_EQ(big.Times(2).value(), INT64_MAX);
  EXPECT_EQ(Quantity(-5).Times(INT64_MAX).value(), INT64_MIN);
  EXPECT_EQ((-Quantity(INT64_MIN)).value(), INT64_MAX);
  EXPECT_EQ((Quantity(2) + Quantity(3)).value(), 5);
  EXPECT_EQ((Quantity(2) - Quantity(3)).value(), -1);
}

TEST(QuantityArithmetic, CheckedFormsReportOverflow) {
  EXPECT_FALSE(Quantity::Max().CheckedAdd(Quantity(1)).has_value());
  EXPECT_FALSE(Quantity(INT64_MIN).CheckedSub(Quantity(1)).has_value());
  EXPECT_FALSE(Quantity(INT64_MAX / 2 + 1).CheckedTimes(2).has_value());
  EXPECT_EQ(Quantity(40).CheckedAdd(Quantity(2))->value(), 42);
  EXPECT_EQ(Quantity(40).CheckedSub(Quantity(50))->value(), -10);
  EXPECT_EQ(Quantity(21).CheckedTimes(2)->value(), 42);
}

TEST(FormatDecimal, DropsTrailingZeros) {
  EXPECT_EQ(FormatDecimal(3500, 3), "3.5");
  EXPECT_EQ(FormatDecimal(4000, 3), "4");
  EXPECT_EQ(FormatDecimal(250, 3), "0.25");
  EXPECT_EQ(FormatDecimal(-250, 3), "-0.25");
  EXPECT_EQ(FormatDecimal(1, 3), "0.001");
  EXPECT_EQ(FormatDecimal(0, 3), "0");
  EXPECT_EQ(FormatDecimal(42, 0), "42");
  EXPECT_EQ(FormatDecimal(INT64_MIN, 3), "-9223372036854775.808");
}

TEST(Bound, UnlimitedIsExplicit) {
  const Bound unlimited = Bound::Unlimited();
  const Bound four = Bound::Of(Quantity(4000));
  EXPECT_TRUE(unlimited.is_unlimited());
  EXPECT_FALSE(four.is_unlimited());
  EXPECT_EQ(four.amount().value(), 4000);
  EXPECT_TRUE(unlimited.Admits(Quantity::Max()));
  EXPECT_TRUE(four.Admits(Quantity(4000)));
  EXPECT_FALSE(four.Admits(Quantity(4001)));
  EXPECT_EQ(four.Cap(Quantity(9000)).value(), 4000);
  EXPECT_EQ(unlimited.Cap(Quantity(9000)).value(), 9000);
  EXPECT_EQ(unlimited.amount_or(Quantity(7)).value(), 7);
  // A zero bound is a hard zero, not "unlimited".
  EXPECT_FALSE(Bound::Of(Quantity::Zero()).Admits(Quantity(1)));
}

}  // namespace
}  // namespace quotient::core
