#include "kube/text_formats.h"

#include <array>

#include "common/int128.h"

namespace quotient::kube {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `count` digits at text[pos...] into `out`.
bool FixedDigits(std::string_view text, size_t pos, size_t count, int& out) {
  if (pos + count > text.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (!IsDigit(text[i])) return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

// Parses the zone part of a timestamp ("Z", "+01:00", "-05:30") into an offset east of UTC.
bool ParseZone(std::string_view zone, std::chrono::minutes& offset) {
  if (zone == "Z" || zone == "z") {
    offset = std::chrono::minutes(0);
    return true;
  }
  int hours = 0;
  int minutes = 0;
  if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') || zone[3] != ':' ||
      !FixedDigits(zone, 1, 2, hours) || !FixedDigits(zone, 4, 2, minutes) || hours > 23 ||
      minutes > 59) {
    return false;
  }
  offset = std::chrono::minutes(hours * 60 + minutes) * (zone[0] == '-' ? -1 : 1);
  return true;
}

// Nanoseconds per Go duration unit, or 0 for an unknown unit.
int64_t UnitNanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") return 1000;
  if (unit == "ms") return 1000 * 1000;
  if (unit == "s") return 1000 * 1000 * 1000;
  if (unit == "m") return int64_t{60} * 1000 * 1000 * 1000;
  if (unit == "h") return int64_t{3600} * 1000 * 1000 * 1000;
  return 0;
}

}  // namespace

Result<core::Time> ParseRfc3339(std::string_view text) {
  const auto bad = [&] {
    return Result<core::Time>::Error("not an RFC 3339 timestamp (\"" + std::string(text) + "\")");
  };
  std::array<int, 6> f{};  // year, month, day, hour, minute, second
  if (!FixedDigits(text, 0, 4, f[0]) || text.size() < 20 || text[4] != '-' ||
      !FixedDigits(text, 5, 2, f[1]) || text[7] != '-' || !FixedDigits(text, 8, 2, f[2]) ||
      (text[10] != 'T' && text[10] != 't') || !FixedDigits(text, 11, 2, f[3]) || text[13] != ':' ||
      !FixedDigits(text, 14, 2, f[4]) || text[16] != ':' || !FixedDigits(text, 17, 2, f[5])) {
    return bad();
  }
  size_t pos = 19;
  if (text[pos] == '.') {
    ++pos;
    const size_t start = pos;
    while (pos < text.size() && IsDigit(text[pos])) ++pos;
    if (pos == start) return bad();
  }
  std::chrono::minutes offset{};
  if (!ParseZone(text.substr(pos), offset)) return bad();
  const std::chrono::year_month_day date{std::chrono::year(f[0]),
                                         std::chrono::month(static_cast<unsigned>(f[1])),
                                         std::chrono::day(static_cast<unsigned>(f[2]))};
  if (!date.ok() || f[3] > 23 || f[4] > 59 || f[5] > 59) return bad();
  const core::Time local = std::chrono::sys_days(date) + std::chrono::hours(f[3]) +
                           std::chrono::minutes(f[4]) + std::chrono::seconds(f[5]);
  return core::Time(local - offset);
}

Result<std::chrono::seconds> ParseGoDuration(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Result<std::chrono::seconds>::Error("not a duration (\"" + std::string(text) +
                                               "\"): " + std::string(why));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::seconds(0);
  if (s.empty()) return bad("empty");
  constexpr Int128 kMaxNanos = INT64_MAX;  // Go's limit: about 290 years
  Int128 total_nanos = 0;
  while (!s.empty()) {
    size_t i = 0;
    Int128 whole = 0;
    Int128 fraction = 0;
    Int128 fraction_scale = 1;
    while (i < s.size() && IsDigit(s[i])) {
      whole = whole * 10 + (s[i++] - '0');
      if (whole > kMaxNanos) return bad("out of range");
    }
    bool has_digits = i > 0;
    if (i < s.size() && s[i] == '.') {
      ++i;
      for (; i < s.size() && IsDigit(s[i]); ++i) {
        has_digits = true;
        if (fraction_scale < Int128{1000000000} * 1000000000) {  // further digits are below 1ns
          fraction = fraction * 10 + (s[i] - '0');
          fraction_scale *= 10;
        }
      }
    }
    if (!has_digits) return bad("expected a number");
    size_t unit_end = i;
    while (unit_end < s.size() && !IsDigit(s[unit_end]) && s[unit_end] != '.') ++unit_end;
    const int64_t unit = UnitNanos(s.substr(i, unit_end - i));
    if (unit == 0) return bad(unit_end == i ? "missing unit" : "unknown unit");
    total_nanos += whole * unit + fraction * unit / fraction_scale;
    if (total_nanos > kMaxNanos) return bad("out of range");
    s.remove_prefix(unit_end);
  }
  const auto seconds = static_cast<int64_t>(total_nanos / 1000000000);
  return std::chrono::seconds(negative ? -seconds : seconds);
}

Result<int64_t> ParseDecimalInteger(std::string_view text, int64_t min, int64_t max) {
  std::string_view digits = text;
  const bool negative = !digits.empty() && digits[0] == '-';
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (digits.empty() || digits.size() > 19) {
    return Result<int64_t>::Error("not an integer (\"" + std::string(text) + "\")");
  }
  Int128 value = 0;
  for (char c : digits) {
    if (!IsDigit(c))
      return Result<int64_t>::Error("not an integer (\"" + std::string(text) + "\")");
    value = value * 10 + (c - '0');
  }
  if (negative) value = -value;
  if (value < min || value > max) {
    return Result<int64_t>::Error("out of range (\"" + std::string(text) + "\", allowed " +
                                  std::to_string(min) + " to " + std::to_string(max) + ")");
  }
  return static_cast<int64_t>(value);
}

bool IsDecimalNumber(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  for (; i < text.size() && IsDigit(text[i]); ++i) ++digits;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && IsDigit(text[i]); ++i) ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    const size_t start = i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    if (i == start) return false;
  }
  return i == text.size();
}

Result<core::Quantity> ParseShiftedDecimal(std::string_view text, int shift, core::Scale scale,
                                           core::Rounding rounding) {
  if (!IsDecimalNumber(text)) {
    return Result<core::Quantity>::Error("not a number (\"" + std::string(text) + "\")");
  }
  // Split off the exponent, add the shift and write the number back in mantissa-e-exponent form,
  // which ParseQuantity reads exactly.
  const size_t e = text.find_first_of("eE");
  std::string_view mantissa = text.substr(0, e);
  long exponent = 0;
  if (e != std::string_view::npos) {
    const Result<int64_t> parsed = ParseDecimalInteger(text.substr(e + 1), -9999, 9999);
    if (!parsed.ok()) return Result<core::Quantity>::Error("out of range");
    exponent = static_cast<long>(parsed.value());
  }
  exponent += shift;
  if (exponent < -9999 || exponent > 9999) return Result<core::Quantity>::Error("out of range");
  const std::string rewritten = std::string(mantissa) + "e" + std::to_string(exponent);
  return core::ParseQuantity(rewritten, scale, rounding);
}

}  // namespace quotient::kube
