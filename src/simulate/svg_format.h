// Text helpers for the HTML report's SVG writers (svg_chart.h, svg_waits.h, svg_occupancy.h):
// escaping, coordinates, durations, fixed-point numbers and the queues' colours.
//
// Coordinates are integers in hundredths of a pixel, printed with at most two decimals, so a
// drawing is exact integer arithmetic and the same input prints the same bytes. Pure functions;
// no state.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace quotient::simulate::svg {

// Text and attribute values: & < > " ' as entities.
std::string Escape(std::string_view text);

// Hundredths of a pixel as a coordinate: 12345 -> "123.45", 1200 -> "12", -50 -> "-0.5".
std::string Px(int64_t hundredths);

// Whole pixels as hundredths.
constexpr int64_t Hundredths(int64_t px) { return px * 100; }

// Seconds as at most `parts` units from the largest, zero units left out: 5400 -> "1h 30m",
// 90061 -> "1d 1h" (parts 2), 0 -> "0s", 45 -> "45s".
std::string Duration(int64_t seconds, int parts = 2);

// A fixed-point integer of `unit` per one as a decimal with at most `decimals` digits after the
// point, trailing zeros dropped: (7500, 1000, 3) -> "7.5", (8000, 1000, 3) -> "8",
// (785, 10, 1) -> "78.5". Truncates further digits.
std::string Fixed(int64_t value, int64_t unit, int decimals);

// The digits after the point that `unit` (a power of ten) allows: 1000 -> 3, 1 -> 0.
int DecimalsOf(int64_t unit);

// An estimate of the width of `text` at `font_px`, in hundredths of a pixel: wide enough for the
// system sans-serif fonts at that size (about 0.6 em per character).
int64_t TextWidth(std::string_view text, int font_px);

// `text` cut to `max_chars` characters, the last replaced by "…"; whole UTF-8 characters.
std::string Ellipsize(std::string_view text, size_t max_chars);

// Colours of queues by name: sorted names take a fixed palette's colours in turn, so the same
// queues get the same colours in every report. "" (pods of other schedulers) is grey.
class Palette {
 public:
  explicit Palette(std::vector<std::string> queues);
  const std::string& Color(const std::string& queue) const;

 private:
  std::map<std::string, std::string> colors_;
  std::string other_;
};

// A run's colour in comparisons: a short fixed palette, in turn.
const char* RunColor(size_t run);

inline constexpr const char* kIdleColor = "#e5e7eb";
inline constexpr const char* kOtherSchedulersColor = "#6b7280";

}  // namespace quotient::simulate::svg
