// Planned objects as Kubernetes API objects (nlohmann::json), in the form `quotient schedule`
// reads them (src/kube/*_codec.cc) and `kubectl get -o json` prints them: KAI's labels and
// annotations, quantities as strings, queue amounts as numbers with -1 for unlimited.
//
// Every object gets a creation timestamp and a uid from its position in the output (`ordinal`),
// never from the clock: 2026-01-01T00:00:00Z plus `ordinal` seconds, so older work comes first.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "generate/cluster_plan.h"

namespace quotient::generate {

nlohmann::json PriorityClassObject(const PlannedPriorityClass& priority_class, int64_t ordinal);
nlohmann::json QueueObject(const PlannedQueue& queue, int64_t ordinal);
nlohmann::json NodeObject(const PlannedNode& node, int64_t ordinal);
nlohmann::json PodGroupObject(const PlannedPodGroup& group, int64_t ordinal);
nlohmann::json PodObject(const PlannedPod& pod, int64_t ordinal);

// Quantities as Kubernetes writes them: "128", "500m"; "1Ti", "16G", "400M" or plain bytes.
std::string CpuQuantity(int64_t milli);
std::string MemoryQuantity(int64_t bytes);

}  // namespace quotient::generate
