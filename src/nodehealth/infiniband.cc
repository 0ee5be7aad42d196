#include "nodehealth/infiniband.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace quotient::nodehealth {
namespace fs = std::filesystem;
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// A sysfs attribute's text; nothing when it cannot be read (the port went away).
std::optional<std::string> ReadAttribute(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return std::string(Trim(text.str()));
}

std::optional<int64_t> ReadCounter(const fs::path& path) {
  const std::optional<std::string> text = ReadAttribute(path);
  if (!text) return std::nullopt;
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (ec != std::errc() || end != text->data() + text->size() || value < 0) return std::nullopt;
  return value;
}

// The entries of a folder, sorted; an error when the folder exists but cannot be listed.
Result<std::vector<std::string>> SortedEntries(const fs::path& dir) {
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Result<std::vector<std::string>>::Error(dir.string() + ": " + ec.message());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<IbPortReading> ReadPort(const fs::path& port_dir, const std::string& device,
                                      int port) {
  IbPortReading reading;
  reading.device = device;
  reading.port = port;
  const std::optional<std::string> link_layer = ReadAttribute(port_dir / "link_layer");
  const std::optional<std::string> state = ReadAttribute(port_dir / "state");
  const std::optional<std::string> phys = ReadAttribute(port_dir / "phys_state");
  if (!state || !phys) return std::nullopt;  // vanished mid-read
  // Older kernels lack link_layer; a port without it is InfiniBand.
  reading.link_layer = link_layer.value_or("InfiniBand");
  const std::optional<NumberedState> s = ParseNumberedState(*state);
  const std::optional<NumberedState> p = ParseNumberedState(*phys);
  reading.state = s ? s->number : 0;
  reading.state_name = s ? s->name : *state;
  reading.phys_state = p ? p->number : 0;
  reading.phys_state_name = p ? p->name : *phys;
  reading.rate_text = ReadAttribute(port_dir / "rate").value_or("");
  reading.rate_mbps = ParseIbRateMbps(reading.rate_text);
  reading.link_downed = ReadCounter(port_dir / "counters" / "link_downed");
  reading.symbol_error = ReadCounter(port_dir / "counters" / "symbol_error");
  return reading;
}

}  // namespace

std::optional<int64_t> ParseIbRateMbps(std::string_view text) {
  text = Trim(text);
  const size_t space = text.find(' ');
  if (space == std::string_view::npos || !Trim(text.substr(space)).starts_with("Gb/sec")) {
    return std::nullopt;
  }
  const std::string_view number = text.substr(0, space);
  const size_t dot = number.find('.');
  const std::string_view whole = number.substr(0, dot);
  std::string_view fraction = dot == std::string_view::npos ? "" : number.substr(dot + 1);
  if (whole.empty() || fraction.size() > 3) return std::nullopt;
  int64_t gb = 0;
  auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), gb);
  if (ec != std::errc() || end != whole.data() + whole.size()) return std::nullopt;
  int64_t mb = gb * 1000;
  int64_t scale = 100;
  for (char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
    mb += (c - '0') * scale;
    scale /= 10;
  }
  return mb;
}

std::optional<NumberedState> ParseNumberedState(std::string_view text) {
  text = Trim(text);
  const size_t colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  NumberedState state;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + colon, state.number);
  if (ec != std::errc() || end != text.data() + colon) return std::nullopt;
  state.name = std::string(Trim(text.substr(colon + 1)));
  return state;
}

Result<std::vector<IbPortReading>> ReadInfinibandPorts(
    const fs::path& sysfs_root, const std::vector<std::string>& excluded_devices) {
  using Ports = std::vector<IbPortReading>;
  const fs::path class_dir = sysfs_root / "class" / "infiniband";
  Result<std::vector<std::string>> devices = SortedEntries(class_dir);
  if (!devices.ok()) return devices.status();
  Ports ports;
  for (const std::string& device : *devices) {
    if (std::find(excluded_devices.begin(), excluded_devices.end(), device) !=
        excluded_devices.end()) {
      continue;
    }
    Result<std::vector<std::string>> numbers = SortedEntries(class_dir / device / "ports");
    if (!numbers.ok()) return numbers.status();
    std::vector<std::pair<int, std::string>> ordered;  // numerically: port 10 after port 2
    for (const std::string& name : *numbers) {
      int port = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), port);
      if (ec == std::errc() && end == name.data() + name.size()) ordered.emplace_back(port, name);
    }
    std::sort(ordered.begin(), ordered.end());
    for (const auto& [port, name] : ordered) {
      std::optional<IbPortReading> reading =
          ReadPort(class_dir / device / "ports" / name, device, port);
      if (reading && reading->link_layer == "InfiniBand") ports.push_back(std::move(*reading));
    }
  }
  return ports;
}

}  // namespace quotient::nodehealth
