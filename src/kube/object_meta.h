// ObjectMeta decoding shared by every kind, and the resource-list helper nodes and pods share.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "core/objects.h"
#include "kube/codecs.h"
#include "kube/field_decoder.h"
#include "kube/value.h"

namespace quotient::kube {

enum class Scope { kCluster, kNamespaced };

// Reads `object`'s metadata into `meta` and returns the FieldDecoder for the rest of the object,
// reporting into `problems`. Returns nullopt, with a warning, when metadata.name is missing or
// not a string: such an object cannot be referred to and is skipped. Namespaced objects without
// metadata.namespace get "default"; cluster-scoped objects ignore it. A missing
// creationTimestamp leaves the epoch.
std::optional<FieldDecoder> DecodeObjectMeta(const Value& object, std::string_view kind,
                                             Scope scope, const DecodeContext& context,
                                             core::ObjectMeta& meta,
                                             std::vector<std::string>& problems);

// Adds each entry of a Kubernetes ResourceList (a map of resource name to quantity) to `out`:
// cpu in millicores, memory in bytes, nvidia.com/gpu in milli-GPUs, pods and every other
// resource in milli-units. Entries that already have a value in `out` are replaced.
void DecodeResourceList(FieldDecoder& decoder, const Value* list, std::string_view field,
                        core::Rounding rounding, core::ResourceVector& out);

// Sets one named resource in `out`, routing the well-known names to their fields.
void SetResource(core::ResourceVector& out, std::string_view name, core::Quantity amount);

// The scale a resource's quantity is read in (kUnit for memory, kMilli for everything else).
core::Scale ResourceScale(std::string_view name);

}  // namespace quotient::kube
