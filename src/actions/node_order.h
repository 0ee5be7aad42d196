// Which feasible node a task prefers (KAI's node scores, kai-reference §7.1). Scores add up:
//   gpusharingorder  1000  a fractional pod fits a shared GPU already in use on the node; a pod
//                          asking for no GPU share (CPU-only, MIG) is on a node with a shared
//                          GPU in use (KAI scores its zero GPU memory as fitting there)
//   nodeavailability  100  the pod fits on idle resources (not only on releasing ones)
//   resourcetype       10  a CPU-only pod on a node without GPUs
//   nodeplacement    0..9  binpack: the fewer free GPUs (GPU pods) or CPU (CPU-only pods) the
//                          higher; spread: free / total, the emptier the higher
// The placement term is below 10, so comparing the integer terms first and then the free amount
// gives exactly KAI's order; remaining ties go to the node that sorts first by name.
#pragma once

#include "actions/node_fit.h"

namespace quotient::actions {

struct NodeScore {
  int64_t points = 0;  // 1000 / 100 / 10 terms
  bool binpack = true;
  int64_t free = 0;   // of the resource the placement term looks at, base units
  int64_t total = 0;  // of that resource on the node
};

NodeScore ScoreNode(const framework::Session& session, core::Index pod, core::Index node,
                    const NodeFit& fit, const PlacementPolicy& policy);

// Whether `a` is preferred over `b` (ties: false; the caller breaks them by node name).
bool BetterNode(const NodeScore& a, const NodeScore& b);

}  // namespace quotient::actions
