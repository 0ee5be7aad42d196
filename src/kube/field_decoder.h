// FieldDecoder: typed reads of one object's fields that record what is wrong instead of failing.
//
// Each read takes the field's Value (nullptr when the key is absent) and its path for messages
// ("spec.containers[0].resources.requests.cpu"). Absent and null fields read as "not set" without
// a message, as in Kubernetes' JSON decoding. A field of the wrong type or with bad content is a
// problem: "path: message" goes into the object's `problems` and a kWarning Diagnostic naming the
// source, the object ("Pod ns/name"), the field and the message goes into `diagnostics`; the read
// then returns "not set" and decoding goes on. So bad input never crashes and never passes
// silently. A FieldDecoder refers to the object's problem list: it lives only while one object is
// decoded, on one thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/diagnostic.h"
#include "core/objects.h"
#include "core/quantity.h"
#include "kube/value.h"

namespace quotient::kube {

// "spec" + "nodeName" -> "spec.nodeName"; "" + "spec" -> "spec".
std::string FieldPath(std::string_view parent, std::string_view key);
// "spec.containers" + 2 -> "spec.containers[2]".
std::string FieldPath(std::string_view parent, size_t index);

// Appends a kWarning about a whole object or document (no field), e.g. a skipped object.
void AddWarning(std::vector<core::Diagnostic>& diagnostics, std::string_view source,
                std::string object, std::string message);

class FieldDecoder {
 public:
  // `object` names the object in messages ("Pod team-a/train-0").
  FieldDecoder(std::string_view source, std::string object, std::vector<std::string>& problems,
               std::vector<core::Diagnostic>& diagnostics);

  // Records one problem with `field`.
  void Problem(std::string_view field, std::string_view message);
  // A value that is accepted as it is but deserves a word (KAI admits and schedules with it):
  // only a kWarning Diagnostic, no problem. Returns "field: message" for the object's own notes.
  std::string Warn(std::string_view field, std::string_view message);

  // The value when it is a mapping / a sequence; nullptr when absent or null (silently) or of
  // another type (a problem).
  const Value* Mapping(const Value* value, std::string_view field);
  const Value* Sequence(const Value* value, std::string_view field);

  std::optional<std::string> String(const Value* value, std::string_view field);
  std::optional<bool> Bool(const Value* value, std::string_view field);
  // A JSON/YAML integer number within [min, max] (a string such as "3" is a type error, as in Go).
  std::optional<int64_t> Integer(const Value* value, std::string_view field, int64_t min,
                                 int64_t max);
  std::optional<int32_t> Int32(const Value* value, std::string_view field, int32_t min = INT32_MIN);
  // A Kubernetes quantity, written as a string or a number.
  std::optional<core::Quantity> Quantity(const Value* value, std::string_view field,
                                         core::Scale scale, core::Rounding rounding);
  std::optional<core::Time> Timestamp(const Value* value, std::string_view field);
  // A Go duration; a negative one is a problem unless `allow_negative`.
  std::optional<std::chrono::seconds> Duration(const Value* value, std::string_view field,
                                               bool allow_negative = false);
  // A map of string to string (labels, annotations, nodeSelector); entries whose value is not a
  // string are problems and left out.
  core::Labels StringMap(const Value* value, std::string_view field);

 private:
  // Whether the field is set: absent (nullptr) and null both mean "not set".
  static bool Present(const Value* value) { return value != nullptr && !value->is_null(); }
  void TypeProblem(const Value& value, std::string_view field, std::string_view expected);

  std::string source_;
  std::string object_;
  std::vector<std::string>& problems_;
  std::vector<core::Diagnostic>& diagnostics_;
};

}  // namespace quotient::kube
