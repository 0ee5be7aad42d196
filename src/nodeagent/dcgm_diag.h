// The DCGM part of `quotient validate`: `dcgmi diag -r <level>` (NVIDIA's own diagnostic:
// level 1 checks the deployment in seconds, 2 and 3 also stress memory, PCIe and NVLink for
// minutes). It needs DCGM's host engine on the node; where the validation image has no dcgmi,
// the mode says whether that is acceptable.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "nodeagent/validation.h"

namespace quotient::nodeagent {

enum class DcgmMode {
  kAuto,      // run it when dcgmi is on PATH, SKIP otherwise
  kOff,       // never run it (SKIP)
  kRequired,  // a missing dcgmi is a FAIL
};

// "auto", "off", "required"; nullopt for anything else.
std::optional<DcgmMode> ParseDcgmMode(std::string_view text);

// How long `dcgmi diag -r <level>` may take: 5 minutes at level 1, 20 at 2, 60 at 3 (generous
// bounds on DCGM's published run times: a hung diagnostic must not hold the node forever).
std::chrono::milliseconds DefaultDcgmTimeout(int level);

struct DcgmOptions {
  DcgmMode mode = DcgmMode::kAuto;
  int level = 1;  // 1..3, `dcgmi diag -r`
  // How long the diagnostic may run; past it the check FAILs.
  std::chrono::milliseconds timeout = DefaultDcgmTimeout(1);
  std::string path;  // where to look for dcgmi, as $PATH
};

// The check `dcgm-diag`: PASS when dcgmi exits 0; FAIL with its exit code (or the timeout) and
// its last output lines otherwise; SKIP when off, or when dcgmi is missing in kAuto.
Check RunDcgmDiag(const DcgmOptions& options);

}  // namespace quotient::nodeagent
