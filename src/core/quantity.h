// Quantity: an exact fixed-point amount of one resource, and Bound: an amount or "unlimited".
//
// A Quantity is an int64 count of its resource's base unit. Base units are chosen so that every
// Kubernetes value is an integer and a 10,000-node cluster's totals fit comfortably in int64:
//   cpu          milli-cores          (the Kubernetes "m" unit)
//   gpu          milli-GPUs           (fractions such as 0.25 GPU are exact)
//   memory       bytes                (milli-bytes would overflow at ~9 PB; fractional bytes are
//                                      meaningless)
//   gpu memory   MiB                  (the unit of the gpu-memory annotation and node label)
//   pods, extended resources          milli-units
// The scale belongs to the resource, not to the Quantity; see resources.h for the named fields.
//
// Arithmetic never wraps: +, - and * saturate at the int64 limits (a saturated total compares as
// "huge", which is the safe reading for capacity checks), and the Checked* forms report overflow.
// There is no conversion from double anywhere in the core.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace quotient::core {

// How a parsed value that is finer than the base unit is brought onto it. The rule used across the
// project: requests round up (a pod never gets less than it asked for), capacity rounds down (a
// node never promises more than it has).
enum class Rounding { kUp, kDown };

// Power of ten of the base unit relative to the quantity's written unit: kMilli means the count is
// in thousandths of the written unit (cpu "1" -> 1000), kUnit means the count is in written units
// (memory "1Ki" -> 1024).
enum class Scale { kMilli = -3, kUnit = 0 };

class Quantity {
 public:
  constexpr Quantity() = default;
  constexpr explicit Quantity(int64_t value) : value_(value) {}

  static constexpr Quantity Zero() { return Quantity(0); }
  static constexpr Quantity Max() { return Quantity(INT64_MAX); }

  // The count of base units.
  constexpr int64_t value() const { return value_; }
  constexpr bool is_zero() const { return value_ == 0; }
  constexpr bool is_negative() const { return value_ < 0; }

  // Saturating arithmetic (inline: these sit on every placement's hot path).
  Quantity operator+(Quantity other) const {
    int64_t r;
    if (__builtin_add_overflow(value_, other.value_, &r)) return Saturated(other.value_ > 0);
    return Quantity(r);
  }
  Quantity operator-(Quantity other) const {
    int64_t r;
    if (__builtin_sub_overflow(value_, other.value_, &r)) return Saturated(other.value_ < 0);
    return Quantity(r);
  }
  Quantity operator-() const { return value_ == INT64_MIN ? Max() : Quantity(-value_); }
  Quantity& operator+=(Quantity other) { return *this = *this + other; }
  Quantity& operator-=(Quantity other) { return *this = *this - other; }
  Quantity Times(int64_t factor) const;

  // Overflow-reporting arithmetic: nullopt when the exact result does not fit in int64.
  std::optional<Quantity> CheckedAdd(Quantity other) const;
  std::optional<Quantity> CheckedSub(Quantity other) const;
  std::optional<Quantity> CheckedTimes(int64_t factor) const;

  constexpr auto operator<=>(const Quantity&) const = default;

 private:
  static Quantity Saturated(bool up) { return up ? Max() : Quantity(INT64_MIN); }

  int64_t value_ = 0;
};

constexpr Quantity Min(Quantity a, Quantity b) { return a < b ? a : b; }
constexpr Quantity Max(Quantity a, Quantity b) { return a < b ? b : a; }

// Parses every Kubernetes quantity form exactly: plain and decimal numbers ("8", "0.5", "1.5"),
// decimal SI suffixes (n u m k M G T P E), binary SI suffixes (Ki Mi Gi Ti Pi Ei) and decimal
// exponents ("1e3", "2E-3"), with an optional sign. The result is a count of 10^scale units,
// rounded by `rounding` when the value is finer than that. Errors name what is wrong with the
// text ("not a quantity", "out of range"); callers add the object and field.
Result<Quantity> ParseQuantity(std::string_view text, Scale scale, Rounding rounding);

// Writes `value` / 10^decimals as a decimal with no trailing zeros: (3500, 3) -> "3.5",
// (-250, 3) -> "-0.25", (4000, 3) -> "4".
std::string FormatDecimal(int64_t value, int decimals);

// An amount that may be explicitly unlimited. Kubernetes-side encodings such as -1 are translated
// at the edge; inside the core "unlimited" is only ever this state.
class Bound {
 public:
  // A default Bound is zero, never unlimited (KAI: an unset quota or limit is 0).
  Bound() : amount_(Quantity::Zero()) {}
  static Bound Unlimited() {
    Bound b;
    b.amount_.reset();
    return b;
  }
  static Bound Of(Quantity amount) { return Bound(amount); }

  bool is_unlimited() const { return !amount_.has_value(); }
  // Precondition: !is_unlimited().
  Quantity amount() const { return *amount_; }
  // The amount, or `fallback` when unlimited.
  Quantity amount_or(Quantity fallback) const { return amount_.value_or(fallback); }

  // min(bound, q): q when unlimited.
  Quantity Cap(Quantity q) const { return is_unlimited() ? q : Min(*amount_, q); }
  // Whether `q` stays within the bound.
  bool Admits(Quantity q) const { return is_unlimited() || q <= *amount_; }

  bool operator==(const Bound&) const = default;

 private:
  explicit Bound(Quantity amount) : amount_(amount) {}

  std::optional<Quantity> amount_;
};

}  // namespace quotient::core
