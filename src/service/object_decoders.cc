#include "service/object_decoders.h"

#include <optional>
#include <vector>

#include "kube/codecs.h"
#include "kube/value.h"

namespace quotient::service {
namespace {

// Parses the JSON and runs `decode`; the error names the object.
template <typename T, typename Decode>
Result<T> DecodeWith(const kubeclient::RawObject& raw, std::string_view kind, Decode decode) {
  const std::string where = std::string(kind) + " " + raw.Key();
  Result<kube::Value> value = kube::ParseJson(raw.json);
  if (!value.ok()) return Result<T>::Error(where + ": " + value.message());
  std::vector<core::Diagnostic> diagnostics;
  kube::DecodeContext context{"api-server", diagnostics};
  std::optional<T> object = decode(*value, context);
  if (!object) {
    std::string message = where + ": cannot be read";
    if (!diagnostics.empty()) message += ": " + diagnostics.front().message;
    return Result<T>::Error(message);
  }
  return std::move(*object);
}

}  // namespace

Result<core::NodeObject> DecodeNodeObject(const kubeclient::RawObject& raw) {
  return DecodeWith<core::NodeObject>(raw, "Node", kube::DecodeNode);
}
Result<core::PodObject> DecodePodObject(const kubeclient::RawObject& raw) {
  return DecodeWith<core::PodObject>(raw, "Pod", kube::DecodePod);
}
Result<core::QueueObject> DecodeQueueObject(const kubeclient::RawObject& raw) {
  return DecodeWith<core::QueueObject>(raw, "Queue", kube::DecodeQueue);
}
Result<core::PodGroupObject> DecodePodGroupObject(const kubeclient::RawObject& raw) {
  return DecodeWith<core::PodGroupObject>(raw, "PodGroup", kube::DecodePodGroup);
}
Result<core::PriorityClassObject> DecodePriorityClassObject(const kubeclient::RawObject& raw) {
  return DecodeWith<core::PriorityClassObject>(raw, "PriorityClass", kube::DecodePriorityClass);
}
Result<core::PodDisruptionBudgetObject> DecodePodDisruptionBudgetObject(
    const kubeclient::RawObject& raw) {
  return DecodeWith<core::PodDisruptionBudgetObject>(raw, "PodDisruptionBudget",
                                                     kube::DecodePodDisruptionBudget);
}

}  // namespace quotient::service
