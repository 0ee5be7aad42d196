// Required inter-pod affinity and anti-affinity (Kubernetes' InterPodAffinity filter).
//
// A node's topology domain for a term is its value of the term's topologyKey. Affinity: some pod
// matching the term must be in the same domain, except that the first pod of a set may go
// anywhere when no pod matches yet and it matches its own term. Anti-affinity: no matching pod
// in the same domain; symmetrically, no pod already there may have an anti-affinity term that
// the incoming pod matches. Pods placed earlier in the same cycle count (the overlay's view);
// releasing pods do not.
#pragma once

#include <string>

#include "framework/session.h"

namespace quotient::actions {

// Empty when the pod's affinity rules allow the node, else the reason.
std::string PodAffinityReason(const framework::Session& session, core::Index pod, core::Index node);

}  // namespace quotient::actions
