// Node predicates other than resources (kai-reference §7.2), each answering "can this pod go on
// this node?" with a reason shared by every node failing the same way, so failures can be
// counted ("2 node(s) had untolerated taint {dedicated: infra}").
//
// In order: the node is usable (Ready, not cordoned, no pressure condition); it belongs to the
// job's node pool; GPU-type compatibility (MigReason below; gpu-memory needs the node's
// nvidia.com/gpu.memory label); taints with effect NoSchedule/NoExecute are tolerated; the
// nodeSelector and the required node affinity match; requested host ports are free; required pod
// affinity and anti-affinity hold (both the pod's own terms and running pods' anti-affinity).
#pragma once

#include <string>

#include "core/label_selectors.h"
#include "framework/session.h"

namespace quotient::actions {

// Empty when the pod may go on the node, else the reason.
std::string CheckPredicates(const framework::Session& session, core::Index pod, core::Index node);

// KAI's GPU-kind rules for MIG (node_info.go, PredicateByNodeResourcesType), empty when the pod
// may go on the node: a legacy MIG pod fits nowhere; a MIG pod needs a MIG-enabled node without
// legacy MIG pods; strategy single takes only whole GPUs, mixed only MIG pods; CPU-only pods are
// never refused. Exposed for tests.
std::string MigReason(const core::Pod& pod, const core::Node& node);

// Kubernetes' matching rules, exposed for tests.
bool Tolerates(const std::vector<core::Toleration>& tolerations, const core::Taint& taint);
using core::MatchesRequirement;
bool MatchesNodeAffinity(const core::Node& node, const core::Affinity& affinity);
using core::MatchesSelector;

}  // namespace quotient::actions
