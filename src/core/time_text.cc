#include "core/time_text.h"

#include <array>
#include <cstdio>

#include "common/int128.h"

namespace quotient::core {
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

Result<Time> ParseRfc3339(std::string_view text) {
  const auto bad = [&] {
    return Result<Time>::Error("not an RFC 3339 timestamp (\"" + std::string(text) + "\")");
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
  const Time local = std::chrono::sys_days(date) + std::chrono::hours(f[3]) +
                     std::chrono::minutes(f[4]) + std::chrono::seconds(f[5]);
  return Time(local - offset);
}

Result<std::chrono::nanoseconds> ParseGoDurationNanos(std::string_view text) {
  const auto bad = [&](std::string_view why) {
    return Result<std::chrono::nanoseconds>::Error("not a duration (\"" + std::string(text) +
                                                   "\"): " + std::string(why));
  };
  std::string_view s = text;
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return std::chrono::nanoseconds(0);
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
  const auto nanos = static_cast<int64_t>(total_nanos);
  return std::chrono::nanoseconds(negative ? -nanos : nanos);
}

Result<std::chrono::seconds> ParseGoDuration(std::string_view text) {
  Result<std::chrono::nanoseconds> nanos = ParseGoDurationNanos(text);
  if (!nanos.ok()) return Result<std::chrono::seconds>::Error(nanos.message());
  // duration_cast truncates toward zero.
  return std::chrono::duration_cast<std::chrono::seconds>(nanos.value());
}

std::string FormatRfc3339(Time t) {
  const std::chrono::sys_days day = std::chrono::floor<std::chrono::days>(t);
  const std::chrono::year_month_day date(day);
  const std::chrono::hh_mm_ss<std::chrono::seconds> clock(t - day);
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(date.year()),
                static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                static_cast<int>(clock.hours().count()), static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()));
  return buf;
}

std::string FormatGoDuration(std::chrono::seconds d) {
  int64_t total = d.count();
  if (total == 0) return "0s";
  std::string out = total < 0 ? "-" : "";
  const uint64_t magnitude =
      total < 0 ? static_cast<uint64_t>(-(total + 1)) + 1 : static_cast<uint64_t>(total);
  const uint64_t hours = magnitude / 3600;
  const uint64_t minutes = magnitude % 3600 / 60;
  const uint64_t seconds = magnitude % 60;
  if (hours > 0) out += std::to_string(hours) + "h";
  if (hours > 0 || minutes > 0) out += std::to_string(minutes) + "m";
  return out + std::to_string(seconds) + "s";
}

}  // namespace quotient::core
