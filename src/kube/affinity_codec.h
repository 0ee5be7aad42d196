// A Pod's spec.affinity -> core::Affinity: the required (hard) node affinity, pod affinity and
// pod anti-affinity terms. Preferred (soft) terms only change scores, which Quotient does not
// model yet, so they are skipped without a message.
//
// The decoder checks what the API server's validation checks and the matchers in the core rely
// on: operators, value counts, integer Gt/Lt values, a topologyKey on every pod (anti-)affinity
// term. A requirement or term that fails a check is a problem on the pod (which makes it
// unschedulable) and is left out of the result, so the core never sees an operator it does not
// know.
//
// A few Kubernetes encodings have no direct counterpart in core::Affinity and are translated here:
// - A node selector term with no requirements matches no node, so it is left out; when no term
//   is left the pod can never be placed, which is a problem. (An empty required_node_terms in
//   the core means "no node affinity".)
// - A pod affinity term without a labelSelector matches no pod: as an anti-affinity term it has
//   no effect and is left out; as an affinity term it can never be satisfied, which is a problem.
//   (An empty core::LabelSelector matches every pod.)
// - namespaceSelector {} selects every namespace (namespace_selector_all). A namespaceSelector
//   with labels would need Namespace objects, which Quotient does not read: a problem.
// - matchFields supports only metadata.name with In or NotIn, as the API server validates.
#pragma once

#include <optional>
#include <string_view>

#include "core/objects.h"
#include "kube/field_decoder.h"
#include "kube/value.h"

namespace quotient::kube {

// Decodes the mapping at spec.affinity (`affinity` may be nullptr or null: no affinity). `field`
// is its path for messages ("spec.affinity").
core::Affinity DecodeAffinity(FieldDecoder& d, const Value* affinity, std::string_view field);

// A metav1.LabelSelector mapping (matchLabels, matchExpressions) at `field`; nullopt, with the
// problem recorded, when any part of it is not valid.
std::optional<core::LabelSelector> DecodeLabelSelector(FieldDecoder& d, const Value& selector,
                                                       std::string_view field);

}  // namespace quotient::kube
