// A stand-in for the oracle while developing and in the tests: speaks `kai-oracle batch`'s
// protocol (one {"id", "args"} line in, one {"id", "report"} or {"id", "error"} line out) and
// answers with Quotient's own report, optionally perturbed so that the comparison and the
// shrinker have a divergence to find:
//   none                Quotient unchanged (the runner must then agree on every case)
//   weights-one         every Queue's overQuotaWeight read as 1 (fair share diverges wherever
//                       weights matter)
//   drop-last-eviction  the last eviction of each cycle left out of the report
//   alternate           run #1 of each case drops cycle 0's last bind (KAI-like variation
//                       between runs of one case: Quotient still matches run #0)
#pragma once

#include <filesystem>
#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include <yaml-cpp/yaml.h>

namespace quotient::kaidiff {

// A YAML node as JSON: quoted scalars stay strings, plain ones become numbers, booleans or
// null when YAML's core schema reads them so.
nlohmann::json YamlToJson(const YAML::Node& node);

int RunFakeOracle(const std::filesystem::path& quotient, const std::string& perturbation,
                  const std::filesystem::path& scratch, std::istream& in, std::ostream& out);

}  // namespace quotient::kaidiff
