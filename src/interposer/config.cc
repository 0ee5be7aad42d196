#include "interposer/config.h"

#include <cstdlib>
#include <limits>

namespace quotient::interposer {
namespace {

std::optional<std::uint64_t> env_byte_size(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return parse_byte_size(value);
}

std::optional<std::uint64_t> limit_variable(const std::string& suffix) {
  if (auto limit = env_byte_size("QUOTIENT_GPU_MEMORY_LIMIT" + suffix)) return limit;
  return env_byte_size("CUDA_DEVICE_MEMORY_LIMIT" + suffix);
}

// The default ledger name is per pod: containers of one pod share the IPC namespace (and so
// /dev/shm), and the pod's hostname is its name.
std::string default_ledger_base() {
  if (const char* pod_uid = std::getenv("QUOTIENT_POD_UID")) {
    return std::string("/quotient-gpu-") + pod_uid;
  }
  if (const char* host = std::getenv("HOSTNAME")) return std::string("/quotient-gpu-") + host;
  return "/quotient-gpu-default";
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t multiplier = 1;
  switch (text.back()) {
    case 'k':
    case 'K':
      multiplier = 1ULL << 10;
      break;
    case 'm':
    case 'M':
      multiplier = 1ULL << 20;
      break;
    case 'g':
    case 'G':
      multiplier = 1ULL << 30;
      break;
    default:
      break;
  }
  if (multiplier != 1) text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (value > std::numeric_limits<std::uint64_t>::max() / multiplier) return std::nullopt;
  return value * multiplier;
}

std::optional<std::uint64_t> Config::limit_for(int device) const {
  if (device < 0 || device >= kMaxDevices) return default_limit;
  const auto& specific = device_limits[device];
  return specific ? specific : default_limit;
}

std::string Config::ledger_name(int device) const {
  return ledger_base + "-dev" + std::to_string(device);
}

Config config_from_environment() {
  Config config;
  config.default_limit = limit_variable("");
  for (int device = 0; device < kMaxDevices; ++device) {
    config.device_limits[device] = limit_variable("_" + std::to_string(device));
  }
  config.context_reserve = env_byte_size("QUOTIENT_GPU_CONTEXT_RESERVE").value_or(0);
  const char* ledger = std::getenv("QUOTIENT_GPU_LEDGER");
  config.ledger_base = ledger != nullptr && *ledger != '\0' ? ledger : default_ledger_base();
  if (config.ledger_base.front() != '/') config.ledger_base.insert(0, "/");
  const char* log = std::getenv("QUOTIENT_GPU_LOG");
  config.log_refusals = log != nullptr && std::string_view(log) == "1";
  return config;
}

}  // namespace quotient::interposer
