// What a snapshot keeps of each object: exactly what scheduling reads (requests, placement
// rules, queue and group specs, node capacity and health), nothing else. Environment, volumes,
// commands, images and managed fields are dropped, so a snapshot carries no secrets and can be
// attached to a ticket; every kept field is one `quotient schedule` and `quotient simulate` read.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace quotient::daytwo {

// The kinds a snapshot holds, as the API lists them, and the apiVersion each item is given.
struct SnapshotKind {
  std::string_view kind;
  std::string_view api_version;
};
inline constexpr SnapshotKind kSnapshotKinds[] = {
    {"Node", "v1"},
    {"Pod", "v1"},
    {"PriorityClass", "scheduling.k8s.io/v1"},
    {"Queue", "scheduling.run.ai/v2"},
    {"PodGroup", "scheduling.run.ai/v2alpha2"},
};

// `object` (as the API returned it, a list item) reduced to the fields above, with apiVersion
// and kind set. Keys keep the order they are written in here.
nlohmann::ordered_json StripObject(const SnapshotKind& kind, const nlohmann::json& object);

}  // namespace quotient::daytwo
