// A pod's shape: everything about a pending pod that decides which nodes can take it, apart
// from the cluster state and its queue — its request, GPU sharing, node pool, tolerations, node
// selector and required node affinity — as text, so that pods of one shape can share work
// (UnfitCache).
#pragma once

#include <string>

#include "framework/session.h"

namespace quotient::actions {

// Empty when the pod's result must not be shared: host ports, pod (anti-)affinity, or any pod
// in the cluster with anti-affinity (which makes the pod's labels matter).
std::string PodShape(const framework::Session& session, core::Index pod);

// Appends the pod's tolerations, node selector and required node affinity terms to `s`, each
// field after a '\x1f' (a character that cannot occur in names, labels or numbers).
void AppendNodeConstraints(const core::Pod& pod, std::string& s);

}  // namespace quotient::actions
