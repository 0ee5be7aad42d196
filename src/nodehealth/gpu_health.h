// Per-GPU health as the node annotation carries it (quotient.dev/gpu-health, named in
// core/node_health.h), so the scheduler can leave one bad GPU out of placement and capacity
// without losing the node. The value is the JSON object the scheduler's node codec reads:
//   {"unhealthy": [{"index": 1, "uuid": "GPU-...", "bdf": "0000:01:00",
//                   "reason": "RowRemapPending,Xid79"}],
//    "unknown":   [{"index": 0, "uuid": "GPU-...", "bdf": "0000:00:00"}]}
// Healthy GPUs are not listed. "reason" joins the GPU's fault reasons with commas. "unknown"
// lists the GPUs the agent could not ask (NVML down); the node's GpuDriverUnresponsive condition
// already keeps work off it, so a reader may ignore that list, but must not count them healthy.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "nodehealth/condition.h"

namespace quotient::nodehealth {

std::string GpuHealthAnnotation(const std::vector<GpuHealth>& gpus);
// The GPUs listed (unhealthy, then unknown), reasons split again.
Result<std::vector<GpuHealth>> ParseGpuHealthAnnotation(std::string_view value);

}  // namespace quotient::nodehealth
