// A `schedule -o json` report reduced to what the differential comparison looks at, the same
// for Quotient's report and the oracle's: per cycle the sets of binds (pod -> node), evictions
// and pipelines by action, and which pods share a GPU (group ids are names each scheduler makes
// up, so only the partition of pods into shared devices is kept); each pod's status and node;
// each pod group's status; each queue's fairShare, allocated and requested (gpu, cpu, memory).
#pragma once

#include <array>
#include <compare>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace quotient::kaidiff {

struct Decision {
  std::string action, kind, pod, node;  // kind: bind, evict, pipeline
  auto operator<=>(const Decision&) const = default;
};

// Pods that share devices: each inner set is the pods on one (node, shared GPU).
using Sharing = std::set<std::set<std::string>>;

struct CycleOutcome {
  std::set<Decision> decisions;
  Sharing sharing;  // among this cycle's binds and pipelines
};

struct PodOutcome {
  std::string status, node, queue, pod_group;
  bool operator==(const PodOutcome&) const = default;
};

// gpu, cpu, memory; nullopt = null in the report (unlimited) or absent.
using Amounts = std::array<std::optional<double>, 3>;
inline constexpr std::array<const char*, 3> kResourceNames = {"gpu", "cpu", "memory"};

struct QueueOutcome {
  Amounts fair_share, allocated, requested;
};

struct Outcome {
  std::vector<CycleOutcome> cycles;
  std::map<std::string, PodOutcome> pods;
  std::map<std::string, std::string> pod_groups;  // ns/name -> status
  std::map<std::string, QueueOutcome> queues;
  Sharing final_sharing;  // among pods holding devices after the last cycle
};

// Reads a report; throws nlohmann::json::exception on a document of another shape.
Outcome ReadOutcome(const nlohmann::json& report);

}  // namespace quotient::kaidiff
