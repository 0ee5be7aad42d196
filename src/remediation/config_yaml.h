// Reads the remediator's configuration from the YAML the chart's ConfigMap carries (README.md
// has the full document with its defaults). Every key is optional: what is absent keeps its
// default, and a policy entry changes only the fields it names of the default entry for that
// condition type (`enabled: false` drops the type). Unknown keys are errors, so a typo does not
// silently leave a rail at its default; every error names the key ("rails.maxPerDomain: ...").
#pragma once

#include <string_view>

#include "common/status.h"
#include "remediation/config.h"

namespace quotient::remediation {

// `text` is one YAML document; empty = DefaultConfig().
Result<Config> ReadConfigYaml(std::string_view text);

}  // namespace quotient::remediation
