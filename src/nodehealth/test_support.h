// Helpers for the nodehealth tests: a scratch folder, file writing, and observation builders
// for a healthy node that each test then breaks in one way.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "nodehealth/evaluate.h"
#include "nodehealth/observations.h"

namespace quotient::nodehealth::testing {

// A fresh folder under the system's temporary folder, removed with the object.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

void WriteFile(const std::filesystem::path& path, std::string_view text);
void AppendFile(const std::filesystem::path& path, std::string_view text);

// GPU i of a healthy node: uuid GPU-000i, bus 0000:0i:00.0 in NVML's form, remapped rows, ECC,
// four active NVLinks with zero counters, PCIe gen 5 x16.
GpuObservation HealthyGpu(int index);
// A node of `gpus` healthy GPUs with NVML fine and no InfiniBand.
NodeObservation HealthyNode(int gpus = 2);

const NodeCondition& ConditionOf(const Evaluation& evaluation, ConditionType type);

// Runs polls over time: each Poll evaluates against the previous poll's state, `step_s` later.
class Agent {
 public:
  explicit Agent(Policy policy = DefaultPolicy(), int64_t start_s = 1'000'000, int64_t step_s = 30)
      : policy_(std::move(policy)), now_s_(start_s), step_s_(step_s) {}
  const Evaluation& Poll(const NodeObservation& observation);
  const Evaluation& last() const { return last_; }
  HealthState& state() { return state_; }
  int64_t now_s() const { return now_s_; }
  void Advance(int64_t seconds) { now_s_ += seconds; }

 private:
  Policy policy_;
  int64_t now_s_;
  int64_t step_s_;
  bool first_ = true;
  HealthState state_;
  Evaluation last_;
};

}  // namespace quotient::nodehealth::testing
