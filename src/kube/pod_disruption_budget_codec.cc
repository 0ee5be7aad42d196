// policy/v1 PodDisruptionBudget -> core::PodDisruptionBudgetObject.
//
// Only what keeps the scheduler's evictions inside the budget is read: the selector and
// status.disruptionsAllowed. minAvailable/maxUnavailable are the disruption controller's input;
// the figure it derives from them is what the Eviction API enforces, so it is the one we use.
#include "kube/affinity_codec.h"
#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {

std::optional<core::PodDisruptionBudgetObject> DecodePodDisruptionBudget(
    const Value& object, const DecodeContext& context) {
  core::PodDisruptionBudgetObject pdb;
  std::optional<FieldDecoder> decoder = DecodeObjectMeta(
      object, "PodDisruptionBudget", Scope::kNamespaced, context, pdb.meta, pdb.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;
  const Value* spec = d.Mapping(object.Find("spec"), "spec");
  const Value* selector =
      spec == nullptr ? nullptr : d.Mapping(spec->Find("selector"), "spec.selector");
  if (selector != nullptr) {
    pdb.selector = DecodeLabelSelector(d, *selector, "spec.selector");
    // A selector we cannot read would protect an unknown set of pods: protect every pod of the
    // namespace rather than none (the problem is reported either way).
    if (!pdb.selector) pdb.selector = core::LabelSelector{};
  }
  const Value* status = d.Mapping(object.Find("status"), "status");
  if (status != nullptr) {
    pdb.disruptions_allowed =
        d.Int32(status->Find("disruptionsAllowed"), "status.disruptionsAllowed", 0).value_or(0);
  }
  return pdb;
}

}  // namespace quotient::kube
