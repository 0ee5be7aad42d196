// The interposer's configuration, read once from the environment (see README.md):
//
//   QUOTIENT_GPU_MEMORY_LIMIT=<n>[k|m|g]   limit per visible device, bytes (suffix: KiB/MiB/GiB)
//   QUOTIENT_GPU_MEMORY_LIMIT_<i>=...      limit of CUDA device ordinal i (overrides the above)
//   CUDA_DEVICE_MEMORY_LIMIT[_<i>]         HAMi-compatible fallbacks, same syntax
//   QUOTIENT_GPU_CONTEXT_RESERVE=<n>[k|m|g] charged once per (process, device): context overhead
//   QUOTIENT_GPU_LEDGER=<name>             shared-memory ledger base name (one object per device)
//   QUOTIENT_GPU_LOG=1                     one stderr line per refused allocation
//
// No limit configured for a device means no enforcement on it (pure pass-through).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace quotient::interposer {

inline constexpr int kMaxDevices = 64;

struct Config {
  std::optional<std::uint64_t> default_limit;
  std::optional<std::uint64_t> device_limits[kMaxDevices];
  std::uint64_t context_reserve = 0;
  std::string ledger_base;
  bool log_refusals = false;

  [[nodiscard]] std::optional<std::uint64_t> limit_for(int device) const;
  [[nodiscard]] std::string ledger_name(int device) const;
};

// Parses "1073741824", "1024m", "1g", "512k"; nullopt on anything else (unset limits stay off
// rather than guessing).
[[nodiscard]] std::optional<std::uint64_t> parse_byte_size(std::string_view text);

// Reads the variables above from the process environment.
[[nodiscard]] Config config_from_environment();

}  // namespace quotient::interposer
