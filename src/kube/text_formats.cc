#include "kube/text_formats.h"

#include <array>

#include "common/int128.h"

namespace quotient::kube {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

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
