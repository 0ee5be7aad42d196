#include "core/quantity.h"

#include <cctype>
#include <cstdlib>

#include "common/int128.h"

namespace quotient::core {
namespace {

using int128 = ::quotient::Int128;

constexpr int64_t kInt64Max = INT64_MAX;
constexpr int64_t kInt64Min = INT64_MIN;

Quantity Saturate(int128 v) {
  if (v > kInt64Max) return Quantity::Max();
  if (v < kInt64Min) return Quantity(kInt64Min);
  return Quantity(static_cast<int64_t>(v));
}

std::optional<Quantity> Fit(int128 v) {
  if (v > kInt64Max || v < kInt64Min) return std::nullopt;
  return Quantity(static_cast<int64_t>(v));
}

// The parts of a quantity string: sign * digits * 10^exp10 * 2^exp2.
struct ParsedNumber {
  bool negative = false;
  std::string digits;  // significant digits, no leading zeros; empty means zero
  int exp10 = 0;
  int exp2 = 0;
};

// Suffix -> (exp10, exp2). Returns false for an unknown suffix.
bool ParseSuffix(std::string_view suffix, int& exp10, int& exp2) {
  struct Entry {
    std::string_view name;
    int exp10;
    int exp2;
  };
  static constexpr Entry kSuffixes[] = {
      {"", 0, 0},    {"n", -9, 0},  {"u", -6, 0},  {"m", -3, 0},  {"k", 3, 0},   {"M", 6, 0},
      {"G", 9, 0},   {"T", 12, 0},  {"P", 15, 0},  {"E", 18, 0},  {"Ki", 0, 10}, {"Mi", 0, 20},
      {"Gi", 0, 30}, {"Ti", 0, 40}, {"Pi", 0, 50}, {"Ei", 0, 60},
  };
  for (const Entry& e : kSuffixes) {
    if (e.name == suffix) {
      exp10 = e.exp10;
      exp2 = e.exp2;
      return true;
    }
  }
  // Decimal exponent: e<signed int> or E<signed int>.
  if (suffix.size() >= 2 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    std::string_view rest = suffix.substr(1);
    bool neg = false;
    if (rest[0] == '+' || rest[0] == '-') {
      neg = rest[0] == '-';
      rest.remove_prefix(1);
    }
    if (rest.empty() || rest.size() > 4) return false;
    int v = 0;
    for (char c : rest) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
      v = v * 10 + (c - '0');
    }
    exp10 = neg ? -v : v;
    exp2 = 0;
    return true;
  }
  return false;
}

Result<ParsedNumber> ParseNumber(std::string_view text) {
  ParsedNumber out;
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    out.negative = text[i] == '-';
    ++i;
  }
  std::string integer_part;
  std::string fraction_part;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    integer_part += text[i++];
  }
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      fraction_part += text[i++];
    }
  }
  if (integer_part.empty() && fraction_part.empty()) {
    return Result<ParsedNumber>::Error("not a quantity (expected a number)");
  }
  if (!ParseSuffix(text.substr(i), out.exp10, out.exp2)) {
    return Result<ParsedNumber>::Error("not a quantity (unknown suffix \"" +
                                       std::string(text.substr(i)) + "\")");
  }
  std::string digits = integer_part + fraction_part;
  out.exp10 -= static_cast<int>(fraction_part.size());
  size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) {
    out.digits.clear();
    return out;
  }
  digits.erase(0, first);
  while (!digits.empty() && digits.back() == '0') {
    digits.pop_back();
    ++out.exp10;
  }
  out.digits = std::move(digits);
  return out;
}

// 10^n for 0 <= n <= 37.
int128 PowerOfTen(int n) {
  int128 v = 1;
  for (int k = 0; k < n; ++k) v *= 10;
  return v;
}

constexpr int128 kInt128Limit = (static_cast<int128>(1) << 120);

}  // namespace

Quantity Quantity::Times(int64_t factor) const {
  return Saturate(static_cast<int128>(value_) * factor);
}
std::optional<Quantity> Quantity::CheckedAdd(Quantity other) const {
  return Fit(static_cast<int128>(value_) + other.value_);
}
std::optional<Quantity> Quantity::CheckedSub(Quantity other) const {
  return Fit(static_cast<int128>(value_) - other.value_);
}
std::optional<Quantity> Quantity::CheckedTimes(int64_t factor) const {
  return Fit(static_cast<int128>(value_) * factor);
}

Result<Quantity> ParseQuantity(std::string_view text, Scale scale, Rounding rounding) {
  if (text.empty()) return Result<Quantity>::Error("not a quantity (empty)");
  Result<ParsedNumber> parsed = ParseNumber(text);
  if (!parsed.ok()) return parsed.status();
  const ParsedNumber& n = parsed.value();
  if (n.digits.empty()) return Quantity::Zero();
  constexpr int kMaxDigits = 30;
  if (n.digits.size() > kMaxDigits) {
    return Result<Quantity>::Error("out of range (too many significant digits)");
  }
  const auto out_of_range = [&] { return Result<Quantity>::Error("out of range"); };

  int128 magnitude = 0;
  for (char c : n.digits) magnitude = magnitude * 10 + (c - '0');  // < 10^30 < 2^100
  // Multiply by 2^exp2 (at most 2^60) and check we stay well inside int128.
  for (int k = 0; k < n.exp2; ++k) {
    magnitude *= 2;
    if (magnitude > kInt128Limit) return out_of_range();
  }
  // Bring the decimal exponent onto the requested scale: value = magnitude * 10^shift units.
  const int shift = n.exp10 - static_cast<int>(scale);
  if (shift >= 0) {
    for (int k = 0; k < shift; ++k) {
      magnitude *= 10;
      if (magnitude > kInt128Limit) return out_of_range();
    }
  } else {
    const int places = -shift;
    int128 quotient = 0;
    bool inexact = false;
    if (places > 37) {
      inexact = true;  // magnitude < 2^120 < 10^37: the value is below one unit and nonzero
    } else {
      const int128 divisor = PowerOfTen(places);
      quotient = magnitude / divisor;
      inexact = (magnitude % divisor) != 0;
    }
    // Round the magnitude; the direction flips for negative values (ceil of -x is -floor x).
    const bool away_from_zero = (rounding == Rounding::kUp) != n.negative;
    if (inexact && away_from_zero) ++quotient;
    magnitude = quotient;
  }
  const int128 signed_value = n.negative ? -magnitude : magnitude;
  std::optional<Quantity> q = Fit(signed_value);
  if (!q) return out_of_range();
  return *q;
}

std::string FormatDecimal(int64_t value, int decimals) {
  const bool negative = value < 0;
  // Work on the magnitude in unsigned 128-bit to survive INT64_MIN.
  UInt128 magnitude =
      negative ? static_cast<UInt128>(-static_cast<int128>(value)) : static_cast<UInt128>(value);
  UInt128 divisor = 1;
  for (int k = 0; k < decimals; ++k) divisor *= 10;
  const auto to_string = [](UInt128 v) {
    if (v == 0) return std::string("0");
    std::string s;
    while (v > 0) {
      s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
      v /= 10;
    }
    return s;
  };
  std::string out = negative ? "-" : "";
  out += to_string(magnitude / divisor);
  UInt128 fraction = magnitude % divisor;
  if (fraction != 0) {
    std::string frac = to_string(fraction);
    frac.insert(frac.begin(), static_cast<size_t>(decimals) - frac.size(), '0');
    while (!frac.empty() && frac.back() == '0') frac.pop_back();
    out += "." + frac;
  }
  return out;
}

}  // namespace quotient::core
