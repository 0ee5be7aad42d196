#include "simulate/svg_format.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace quotient::simulate::svg {
namespace {

// Tableau's 10 and 10 of its lighter and darker variants, with no grey: grey means idle.
constexpr std::array<const char*, 20> kQueueColors = {
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1",
    "#ff9da7", "#9c755f", "#499894", "#a0cbe8", "#ffbe7d", "#8cd17d", "#ff9d9a",
    "#86bcb6", "#f1ce63", "#d4a6c8", "#d37295", "#d7b5a6", "#79706e"};

constexpr std::array<const char*, 6> kRunColors = {"#2563eb", "#ea580c", "#16a34a",
                                                   "#9333ea", "#dc2626", "#0891b2"};

}  // namespace

std::string Escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Px(int64_t hundredths) {
  const char* sign = hundredths < 0 ? "-" : "";
  const int64_t h = hundredths < 0 ? -hundredths : hundredths;
  const int64_t whole = h / 100;
  const int64_t frac = h % 100;
  if (frac == 0) return fmt::format("{}{}", sign, whole);
  if (frac % 10 == 0) return fmt::format("{}{}.{}", sign, whole, frac / 10);
  return fmt::format("{}{}.{:02d}", sign, whole, frac);
}

std::string Duration(int64_t seconds, int parts) {
  if (seconds < 0) return "-" + Duration(-seconds, parts);
  if (seconds == 0) return "0s";
  struct Unit {
    int64_t seconds;
    const char* suffix;
  };
  constexpr std::array<Unit, 4> kUnits = {{{86400, "d"}, {3600, "h"}, {60, "m"}, {1, "s"}}};
  std::string out;
  int used = 0;
  int64_t rest = seconds;
  for (const Unit& u : kUnits) {
    const int64_t n = rest / u.seconds;
    rest %= u.seconds;
    if (used == 0 && n == 0) continue;  // before the largest unit
    if (n > 0) out += fmt::format("{}{}{}", out.empty() ? "" : " ", n, u.suffix);
    if (++used == parts) break;
  }
  return out;
}

int DecimalsOf(int64_t unit) {
  int decimals = 0;
  for (int64_t u = unit; u >= 10; u /= 10) ++decimals;
  return decimals;
}

std::string Fixed(int64_t value, int64_t unit, int decimals) {
  const char* sign = value < 0 ? "-" : "";
  const int64_t v = value < 0 ? -value : value;
  const int64_t whole = v / unit;
  int64_t frac = v % unit;
  int digits = DecimalsOf(unit);
  while (digits > decimals) {
    frac /= 10;
    --digits;
  }
  while (digits > 0 && frac % 10 == 0) {
    frac /= 10;
    --digits;
  }
  if (digits == 0) return fmt::format("{}{}", sign, whole);
  return fmt::format("{}{}.{:0{}d}", sign, whole, frac, digits);
}

int64_t TextWidth(std::string_view text, int font_px) {
  int64_t chars = 0;
  for (const char c : text) {
    // Count UTF-8 lead bytes only.
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) ++chars;
  }
  return chars * font_px * 60;  // 0.6 em, in hundredths
}

std::string Ellipsize(std::string_view text, size_t max_chars) {
  size_t chars = 0;
  size_t cut = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0U) == 0x80U) continue;
    if (chars + 1 == max_chars && cut == text.size()) cut = i;
    ++chars;
  }
  if (chars <= max_chars || max_chars == 0) return std::string(text);
  return std::string(text.substr(0, cut)) + "\u2026";
}

Palette::Palette(std::vector<std::string> queues) : other_(kOtherSchedulersColor) {
  std::sort(queues.begin(), queues.end());
  queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
  size_t next = 0;
  for (std::string& q : queues) {
    if (q.empty()) continue;
    colors_.emplace(std::move(q), kQueueColors[next++ % kQueueColors.size()]);
  }
}

const std::string& Palette::Color(const std::string& queue) const {
  const auto it = colors_.find(queue);
  return it == colors_.end() ? other_ : it->second;
}

const char* RunColor(size_t run) { return kRunColors[run % kRunColors.size()]; }

}  // namespace quotient::simulate::svg
