#include "nodehealth/test_support.h"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace quotient::nodehealth::testing {

ScratchDir::ScratchDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "nodehealth-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void WriteFile(const std::filesystem::path& path, std::string_view text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

void AppendFile(const std::filesystem::path& path, std::string_view text) {
  std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

GpuObservation HealthyGpu(int index) {
  GpuObservation gpu;
  gpu.index = index;
  gpu.uuid = "GPU-000" + std::to_string(index);
  gpu.bus_id = "00000000:0" + std::to_string(index) + ":00.0";
  gpu.remapped_rows = RemappedRows{};
  gpu.ecc = EccCounts{0, 0, 0, 0};
  gpu.retired_pages = RetiredPages{0, 0, false};
  for (int link = 0; link < 4; ++link) gpu.nvlinks.push_back(NvlinkReading{link, true, 0, 0, 0});
  gpu.pcie = PcieReading{5, 5, 16, 16, 0, std::nullopt};  // gen 5 x16, idle
  gpu.recovery_action = RecoveryAction::kNone;
  return gpu;
}

NodeObservation HealthyNode(int gpus) {
  NodeObservation node;
  node.expected_gpu_count = gpus;
  for (int i = 0; i < gpus; ++i) node.gpus.push_back(HealthyGpu(i));
  return node;
}

const NodeCondition& ConditionOf(const Evaluation& evaluation, ConditionType type) {
  for (const NodeCondition& c : evaluation.conditions) {
    if (c.type == type) return c;
  }
  throw std::logic_error("no condition of that type");
}

const Evaluation& Agent::Poll(const NodeObservation& observation) {
  if (!first_) now_s_ += step_s_;
  first_ = false;
  last_ = Evaluate(observation, state_, policy_, now_s_);
  state_ = last_.state;
  return last_;
}

}  // namespace quotient::nodehealth::testing
