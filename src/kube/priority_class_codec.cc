// scheduling.k8s.io/v1 PriorityClass -> core::PriorityClassObject.
#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {

std::optional<core::PriorityClassObject> DecodePriorityClass(const Value& object,
                                                             const DecodeContext& context) {
  core::PriorityClassObject priority_class;
  std::optional<FieldDecoder> decoder =
      DecodeObjectMeta(object, "PriorityClass", Scope::kCluster, context, priority_class.meta,
                       priority_class.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;
  // PriorityClass has no spec: value and globalDefault sit at the top level.
  const Value* value = object.Find("value");
  if (value == nullptr || value->is_null()) {
    d.Problem("value", "missing (a PriorityClass needs a value)");
  } else {
    priority_class.value = d.Int32(value, "value").value_or(0);
  }
  priority_class.global_default =
      d.Bool(object.Find("globalDefault"), "globalDefault").value_or(false);
  return priority_class;
}

}  // namespace quotient::kube
