// Decoders from one API object (a Value whose kind and apiVersion the dispatcher in loader.cc has
// already checked) to the core structs of core/objects.h.
//
// Each decoder returns nullopt when the object must be skipped (metadata.name missing; a warning
// is already in the diagnostics). Otherwise it returns the object, with any field it could not
// read listed in the object's `problems` and reported as a warning; such an object is made
// unschedulable later by the snapshot builder rather than dropped. Decoders are pure functions
// of their input and safe to run concurrently on different objects.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "kube/value.h"

namespace quotient::kube {

struct DecodeContext {
  std::string_view source;  // file name or "-", copied into every ObjectMeta and Diagnostic
  std::vector<core::Diagnostic>& diagnostics;
};

std::optional<core::NodeObject> DecodeNode(const Value& object, const DecodeContext& context);
std::optional<core::PodObject> DecodePod(const Value& object, const DecodeContext& context);
std::optional<core::QueueObject> DecodeQueue(const Value& object, const DecodeContext& context);
std::optional<core::PodGroupObject> DecodePodGroup(const Value& object,
                                                   const DecodeContext& context);
std::optional<core::PriorityClassObject> DecodePriorityClass(const Value& object,
                                                             const DecodeContext& context);
std::optional<core::PodDisruptionBudgetObject> DecodePodDisruptionBudget(
    const Value& object, const DecodeContext& context);

}  // namespace quotient::kube
