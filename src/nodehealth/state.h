// The evaluation's state on the host (a hostPath file), so counters, windows and raised faults
// survive an agent restart, and the boot id that makes a reboot start afresh.
//
// The file is a small JSON document (README.md, "State file"), written to a temporary file and
// renamed so a crash mid-write leaves the old one. Loading never fails: a missing file, a file
// from another boot and a corrupt file all give a fresh state, with the reason in `note`.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "common/status.h"
#include "nodehealth/health_state.h"

namespace quotient::nodehealth {

// /proc/sys/kernel/random/boot_id (the path is a parameter): one line, a UUID per boot.
Result<std::string> ReadBootId(const std::filesystem::path& path);

enum class StateOrigin {
  kLoaded,   // the file of this boot
  kFresh,    // no file yet
  kNewBoot,  // the file of an earlier boot: its counters measured a machine since rebooted
  kCorrupt,  // unreadable or not our format: ignored (`note` says why)
};

struct LoadedState {
  HealthState state;  // boot_id is always the current one
  StateOrigin origin = StateOrigin::kFresh;
  std::string note;
};

LoadedState LoadState(const std::filesystem::path& path, std::string_view boot_id);
Status SaveState(const std::filesystem::path& path, const HealthState& state);

// The document itself, for tests and for `quotient node-agent --print-state`.
std::string SerializeState(const HealthState& state);
Result<HealthState> ParseState(std::string_view json);

}  // namespace quotient::nodehealth
