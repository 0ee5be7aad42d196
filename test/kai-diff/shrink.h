// Shrinking a diverging case to a small reproducer, by delta debugging: keep a change when the
// same divergence (the caller's test: same class against KAI's runs) is still there. In order,
// repeated until nothing more goes: fewer cycles; fewer actions; no --delete-evicted, no
// configuration; jobs (a PodGroup with its pods, or an implicit single-pod job) removed in
// halves, quarters, ... down to one (ddmin); nodes likewise (with the pods bound to them); single
// pods of a group; queues nothing refers to; unreferenced PriorityClasses; then
// simplifications one at a time: a pod's cpu or memory request, its tolerations, selector,
// affinity or priority class, N whole GPUs made 1; a node's taints, its cpu and memory made
// plenty; a queue's cpu/memory made unlimited, its GPU limit -1, weight 1, quota a whole number
// (a negative one other than -1 made 0), its priority or min-runtimes; a PodGroup's priority class
// or preemptibility. Every step keeps the case something KAI's CRDs admit. Stops after `budget`
// tests.
#pragma once

#include <functional>

#include "case.h"

namespace quotient::kaidiff {

using StillDiverges = std::function<bool(const Case&)>;

struct ShrinkStats {
  int tests = 0;     // calls of the predicate
  int accepted = 0;  // changes kept
};

Case Shrink(const Case& c, const StillDiverges& test, int budget, ShrinkStats* stats = nullptr);

}  // namespace quotient::kaidiff
