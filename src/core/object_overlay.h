// Proposed changes laid over a set of objects: what `quotient simulate --compare-with` runs
// against (another quota set, more nodes, a different workload). An object of the changes
// replaces the object of the same kind and namespace/name; the others are added.
#pragma once

#include "core/objects.h"

namespace quotient::core {

// `base` with `changes` laid over it; each kind keeps base's order, with additions after.
ClusterObjects OverlayObjects(ClusterObjects base, ClusterObjects changes);

}  // namespace quotient::core
