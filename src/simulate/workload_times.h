// When each pod of a simulated workload arrives and how long it runs: annotations on the Pod, or
// on the PodGroup it names (the pod's own win).
//
//   simulation.quotient.dev/arrival   a Go duration after the start of the run ("0", "90s",
//                                     "2h30m"); default 0. A pod that already has a node in the
//                                     input is running at the start whatever it says.
//   simulation.quotient.dev/duration  how long the pod runs once bound (positive); absent: it
//                                     runs until the run ends (a service, a notebook).
//
// A value that cannot be read is an error naming the object and the annotation: a simulation on
// silently wrong times would answer the wrong question.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "core/objects.h"

namespace quotient::simulate {

inline constexpr std::string_view kArrivalAnnotation = "simulation.quotient.dev/arrival";
inline constexpr std::string_view kDurationAnnotation = "simulation.quotient.dev/duration";

struct PodTimes {
  std::chrono::seconds arrival{0};
  std::optional<std::chrono::seconds> duration;  // none: runs until the end
};

// The times of every pod of `scheduler_name`, by pod key ("ns/name").
Result<std::map<std::string, PodTimes>> ReadPodTimes(const core::ClusterObjects& objects,
                                                     const std::string& scheduler_name);

}  // namespace quotient::simulate
