// The objects the pod grouper reads: a pod and the owners above it, of any kind, including
// custom resources whose schema Quotient does not know. Metadata is decoded; the rest stays a
// generic document (kube::Value) that each grouper reads the fields it needs from.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kube/value.h"

namespace quotient::podgrouper {

using Labels = std::map<std::string, std::string>;

struct OwnerReference {
  std::string api_version;  // "kubeflow.org/v1"
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct Object {
  std::string api_version;  // "v1", "apps/v1", "ray.io/v1"
  std::string kind;
  std::string namespace_name;
  std::string name;
  std::string uid;
  Labels labels;
  Labels annotations;
  std::vector<OwnerReference> owner_references;
  kube::Value doc;  // the whole object, for spec and status fields

  // "kubeflow.org" for "kubeflow.org/v1"; "" for the core group ("v1").
  std::string group() const;
  // "Kind namespace/name": how warnings name the object.
  std::string Describe() const;
  // The owner reference marked controller, else the first, else nullptr.
  const OwnerReference* ControllerOwner() const;
  // This object as an owner reference (controller, as Kubernetes owners of PodGroups are).
  OwnerReference AsOwner() const;
};

// Decodes apiVersion, kind and metadata; an error names the field (e.g. "metadata.uid: missing").
// Items of a list from the API server carry no apiVersion and kind: the caller that knows them
// passes `api_version` and `kind`, which apply where the document says nothing.
Result<Object> ObjectFromValue(kube::Value doc, std::string_view api_version = {},
                               std::string_view kind = {});

// The value at `path` (mapping keys) under `from`, or nullptr when any step is absent or not a
// mapping.
const kube::Value* At(const kube::Value* from, std::initializer_list<std::string_view> path);
const kube::Value* At(const Object& object, std::initializer_list<std::string_view> path);

// Reads a count (replicas, minAvailable, ...) at `field` (a dotted path for messages) from
// `value`: nullopt when absent or null; a number that is not a non-negative integer up to
// 2^31-1, or anything but a number, adds a warning naming the object and the field and gives
// nullopt, so the caller falls back to its default.
std::optional<int32_t> ReadCount(const kube::Value* value, const Object& object,
                                 std::string_view field, std::vector<std::string>& warnings);

// The string at `value`, or "" when absent or not a string.
std::string ReadString(const kube::Value* value);

}  // namespace quotient::podgrouper
