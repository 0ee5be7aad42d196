// Kubernetes' label-matching rules, shared by the snapshot builder (which pods a
// PodDisruptionBudget covers) and the predicates (node selectors, affinity).
#pragma once

#include "core/objects.h"

namespace quotient::core {

// Every key of `selector` is in `labels` with the same value (an empty selector matches all).
bool MatchesLabels(const Labels& selector, const Labels& labels);
// One requirement: In, NotIn, Exists, DoesNotExist, and (node selectors) Gt/Lt on integers.
bool MatchesRequirement(const Labels& labels, const SelectorRequirement& r);
// A metav1.LabelSelector; an empty one matches every set of labels.
bool MatchesSelector(const LabelSelector& selector, const Labels& labels);

}  // namespace quotient::core
