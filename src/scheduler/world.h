// AdvanceWorld: what a cluster does between two cycles, applied to the objects of a run.
//   - a pod bound in the cycle starts Running on its node;
//   - an evicted pod goes away and, as its workload controller would, comes back as a new
//     Pending pod with the same name and pod group (`delete_evicted` drops it instead, as for a
//     bare pod);
//   - a pipelined pod stays Pending and competes again in the next cycle;
//   - pods that were already terminating in the input stay Releasing on their node.
// Pure data transformation: the simulator and `quotient schedule --cycles` share it.
#pragma once

#include <vector>

#include "core/objects.h"
#include "framework/decision.h"
#include "framework/session.h"

namespace quotient::scheduler {

using framework::Decision;
using framework::DecisionKind;

// The pod as its bind leaves it: on the decision's node, Running, with its GPU group labels.
void ApplyBind(core::PodObject& pod, const Decision& d);
// An evicted pod's replacement as its workload controller would make it: the same name, labels
// and annotations, Pending, not placed, without GPU groups.
void ResetAsRecreated(core::PodObject& pod);

void AdvanceWorld(core::ClusterObjects& objects, const std::vector<Decision>& decisions,
                  bool delete_evicted);

// Applies the PodGroup annotation changes a cycle made (last-start and stale timestamps).
void ApplyAnnotations(core::ClusterObjects& objects,
                      const std::vector<framework::Session::AnnotationUpdate>& updates);

}  // namespace quotient::scheduler
