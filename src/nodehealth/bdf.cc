#include "nodehealth/bdf.h"

#include <cstdint>
#include <cstdio>
#include <vector>

namespace quotient::nodehealth {
namespace {

std::optional<uint64_t> ParseHex(std::string_view text, size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<uint64_t>(digit);
  }
  return value;
}

}  // namespace

std::optional<std::string> NormalizeBdf(std::string_view text) {
  if (text.starts_with("PCI:")) text.remove_prefix(4);
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t colon = text.find(':'); colon != std::string_view::npos;
       colon = text.find(':', start)) {
    parts.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  parts.push_back(text.substr(start));
  if (parts.size() == 2) parts.insert(parts.begin(), "0");  // "3b:00.0": domain 0
  if (parts.size() != 3) return std::nullopt;
  std::string_view device = parts[2];
  if (size_t dot = device.find('.'); dot != std::string_view::npos) {
    if (!ParseHex(device.substr(dot + 1), 1)) return std::nullopt;
    device = device.substr(0, dot);
  }
  const std::optional<uint64_t> domain = ParseHex(parts[0], 8);
  const std::optional<uint64_t> bus = ParseHex(parts[1], 2);
  const std::optional<uint64_t> dev = ParseHex(device, 2);
  if (!domain || !bus || !dev || *dev > 0x1f) return std::nullopt;
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%04llx:%02llx:%02llx",
                static_cast<unsigned long long>(*domain), static_cast<unsigned long long>(*bus),
                static_cast<unsigned long long>(*dev));
  return std::string(buffer);
}

}  // namespace quotient::nodehealth
