#include "kube/object_meta.h"

#include <string>
#include <utility>

namespace quotient::kube {

std::optional<FieldDecoder> DecodeObjectMeta(const Value& object, std::string_view kind,
                                             Scope scope, const DecodeContext& context,
                                             core::ObjectMeta& meta,
                                             std::vector<std::string>& problems) {
  const Value* metadata = object.Find("metadata");
  const Value* name = metadata != nullptr ? metadata->Find("name") : nullptr;
  const Value* ns = metadata != nullptr ? metadata->Find("namespace") : nullptr;
  if (scope == Scope::kNamespaced && ns != nullptr && ns->type() == Value::Type::kString &&
      !ns->text().empty()) {
    meta.namespace_name = ns->text();
  } else if (scope == Scope::kNamespaced) {
    meta.namespace_name = "default";
  }
  if (name == nullptr || name->type() != Value::Type::kString || name->text().empty()) {
    AddWarning(context.diagnostics, context.source, std::string(kind),
               "metadata.name is missing or not a string; object skipped");
    return std::nullopt;
  }
  meta.name = name->text();
  meta.source = std::string(context.source);

  std::optional<FieldDecoder> decoder;
  decoder.emplace(context.source, std::string(kind) + " " + meta.Key(), problems,
                  context.diagnostics);
  FieldDecoder& d = *decoder;
  metadata = d.Mapping(metadata, "metadata");  // a non-map metadata cannot reach here: no name
  if (scope == Scope::kNamespaced) d.String(ns, "metadata.namespace");  // type check only
  meta.uid = d.String(metadata->Find("uid"), "metadata.uid").value_or("");
  meta.labels = d.StringMap(metadata->Find("labels"), "metadata.labels");
  meta.annotations = d.StringMap(metadata->Find("annotations"), "metadata.annotations");
  meta.creation_time =
      d.Timestamp(metadata->Find("creationTimestamp"), "metadata.creationTimestamp")
          .value_or(core::Time{});
  if (const Value* owners = metadata->Find("ownerReferences");
      owners != nullptr && owners->is_sequence()) {
    for (const Value& owner : owners->items()) {
      const Value* controller = owner.Find("controller");
      const Value* owner_kind = owner.Find("kind");
      if (controller != nullptr && controller->type() == Value::Type::kBool &&
          controller->bool_value() && owner_kind != nullptr &&
          owner_kind->type() == Value::Type::kString) {
        meta.controller_kind = owner_kind->text();
      }
    }
  }
  const Value* deletion = metadata->Find("deletionTimestamp");
  if (deletion != nullptr && !deletion->is_null()) {
    meta.deleting = true;
    meta.deletion_time = d.Timestamp(deletion, "metadata.deletionTimestamp");
  }
  return decoder;
}

core::Scale ResourceScale(std::string_view name) {
  return name == core::kMemoryResource ? core::Scale::kUnit : core::Scale::kMilli;
}

void SetResource(core::ResourceVector& out, std::string_view name, core::Quantity amount) {
  if (name == core::kCpuResource) {
    out.cpu_milli = amount;
  } else if (name == core::kMemoryResource) {
    out.memory_bytes = amount;
  } else if (name == core::kGpuResource) {
    out.gpu_milli = amount;
  } else if (name == core::kPodsResource) {
    out.pods_milli = amount;
  } else {
    out.SetScalar(name, amount);
  }
}

void DecodeResourceList(FieldDecoder& decoder, const Value* list, std::string_view field,
                        core::Rounding rounding, core::ResourceVector& out) {
  const Value* map = decoder.Mapping(list, field);
  if (map == nullptr) return;
  for (size_t i = 0; i < map->size(); ++i) {
    const std::string& name = map->keys()[i];
    std::optional<core::Quantity> amount =
        decoder.Quantity(&map->items()[i], FieldPath(field, name), ResourceScale(name), rounding);
    if (!amount) continue;
    if (amount->is_negative()) {
      decoder.Problem(FieldPath(field, name),
                      "negative quantity (\"" + map->items()[i].text() + "\")");
      continue;
    }
    SetResource(out, name, *amount);
  }
}

}  // namespace quotient::kube
