// One differential case: the Kubernetes objects of a small cluster (as JSON trees, written out as
// the YAML `kubectl get -o yaml` prints), how to run it (actions, cycles, an optional scheduler
// configuration in KAI's format, --delete-evicted) and the feature tags the generator recorded.
// Both schedulers get exactly the same files and arguments: `--scheduler-name kai-scheduler`, the
// fixed clock kNow, `-o json`, the actions and cycles spelled out.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace quotient::kaidiff {

inline constexpr const char* kNow = "2026-03-01T12:00:00Z";
inline constexpr const char* kSchedulerName = "kai-scheduler";

struct RunOptions {
  std::vector<std::string> actions;  // KAI's names, in KAI's order
  int cycles = 1;
  bool delete_evicted = false;
  std::optional<nlohmann::json> config;  // a KAI scheduler configuration
};

struct Case {
  uint64_t seed = 0;
  int index = 0;
  std::vector<std::string> tags;  // sorted, unique
  std::vector<nlohmann::json> objects;
  RunOptions run;

  std::string Id() const;  // "s<seed>-c<index>"
  bool HasTag(const std::string& tag) const;
};

// The five actions in KAI's order.
const std::vector<std::string>& AllActions();

// The objects as a multi-document YAML stream; every string value double-quoted.
std::string ToYaml(const std::vector<nlohmann::json>& objects);
std::string ToYaml(const nlohmann::json& object);

// Writes cluster.yaml (and config.yaml when the case has a configuration) into `dir`.
void WriteCaseFiles(const Case& c, const std::filesystem::path& dir);

// The arguments after `schedule` for the files WriteCaseFiles wrote into `dir`; with `dir` =
// "$SCENARIO" they are the lines of a scenario's args.txt.
std::vector<std::string> ScheduleArgs(const Case& c, const std::string& dir);

}  // namespace quotient::kaidiff
