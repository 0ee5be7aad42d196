#include "podgrouper/object.h"

#include "kube/text_formats.h"

namespace quotient::podgrouper {

namespace {

std::string StringAt(const kube::Value& doc, std::string_view key) {
  const kube::Value* v = doc.Find(key);
  return v != nullptr && v->type() == kube::Value::Type::kString ? v->text() : std::string();
}

Status ReadStringMap(const kube::Value* map, std::string_view field, Labels& out) {
  if (map == nullptr || map->is_null()) return Status::Ok();
  if (!map->is_mapping()) return Status::Error(std::string(field) + ": expected a map");
  for (size_t i = 0; i < map->size(); ++i) {
    const kube::Value& v = map->items()[i];
    if (v.type() != kube::Value::Type::kString) {
      return Status::Error(std::string(field) + "." + map->keys()[i] + ": expected a string");
    }
    out[map->keys()[i]] = v.text();
  }
  return Status::Ok();
}

Status ReadOwnerReferences(const kube::Value* refs, std::vector<OwnerReference>& out) {
  if (refs == nullptr || refs->is_null()) return Status::Ok();
  if (!refs->is_sequence()) return Status::Error("metadata.ownerReferences: expected a list");
  for (size_t i = 0; i < refs->size(); ++i) {
    const kube::Value& ref = refs->items()[i];
    const std::string field = "metadata.ownerReferences[" + std::to_string(i) + "]";
    if (!ref.is_mapping()) return Status::Error(field + ": expected a map");
    OwnerReference owner{StringAt(ref, "apiVersion"), StringAt(ref, "kind"), StringAt(ref, "name"),
                         StringAt(ref, "uid"), false};
    if (owner.api_version.empty() || owner.kind.empty() || owner.name.empty()) {
      return Status::Error(field + ": apiVersion, kind and name are required");
    }
    const kube::Value* controller = ref.Find("controller");
    owner.controller = controller != nullptr && controller->type() == kube::Value::Type::kBool &&
                       controller->bool_value();
    out.push_back(std::move(owner));
  }
  return Status::Ok();
}

}  // namespace

std::string Object::group() const {
  const size_t slash = api_version.find('/');
  return slash == std::string::npos ? std::string() : api_version.substr(0, slash);
}

std::string Object::Describe() const {
  return kind + " " + (namespace_name.empty() ? name : namespace_name + "/" + name);
}

const OwnerReference* Object::ControllerOwner() const {
  for (const OwnerReference& owner : owner_references) {
    if (owner.controller) return &owner;
  }
  return owner_references.empty() ? nullptr : &owner_references.front();
}

OwnerReference Object::AsOwner() const { return {api_version, kind, name, uid, true}; }

Result<Object> ObjectFromValue(kube::Value doc, std::string_view api_version,
                               std::string_view kind) {
  using R = Result<Object>;
  if (!doc.is_mapping()) return R::Error("expected a map");
  Object object;
  object.api_version = StringAt(doc, "apiVersion");
  object.kind = StringAt(doc, "kind");
  if (object.api_version.empty()) object.api_version = api_version;
  if (object.kind.empty()) object.kind = kind;
  if (object.api_version.empty()) return R::Error("apiVersion: missing");
  if (object.kind.empty()) return R::Error("kind: missing");
  const kube::Value* meta = doc.Find("metadata");
  if (meta == nullptr || !meta->is_mapping()) return R::Error("metadata: missing or not a map");
  object.name = StringAt(*meta, "name");
  object.namespace_name = StringAt(*meta, "namespace");
  object.uid = StringAt(*meta, "uid");
  if (object.name.empty()) return R::Error("metadata.name: missing");
  if (object.uid.empty()) return R::Error(object.Describe() + ": metadata.uid: missing");
  for (const auto& [key, out] :
       {std::pair{"labels", &object.labels}, std::pair{"annotations", &object.annotations}}) {
    const Status s = ReadStringMap(meta->Find(key), std::string("metadata.") + key, *out);
    if (!s.ok()) return R::Error(object.Describe() + ": " + s.message());
  }
  const Status refs = ReadOwnerReferences(meta->Find("ownerReferences"), object.owner_references);
  if (!refs.ok()) return R::Error(object.Describe() + ": " + refs.message());
  object.doc = std::move(doc);
  return object;
}

const kube::Value* At(const kube::Value* from, std::initializer_list<std::string_view> path) {
  for (const std::string_view key : path) {
    if (from == nullptr) return nullptr;
    from = from->Find(key);
  }
  return from;
}

const kube::Value* At(const Object& object, std::initializer_list<std::string_view> path) {
  return At(&object.doc, path);
}

std::optional<int32_t> ReadCount(const kube::Value* value, const Object& object,
                                 std::string_view field, std::vector<std::string>& warnings) {
  if (value == nullptr || value->is_null()) return std::nullopt;
  const auto warn = [&](const std::string& why) {
    warnings.push_back(object.Describe() + ": " + std::string(field) + ": " + why);
    return std::nullopt;
  };
  if (value->type() != kube::Value::Type::kNumber) {
    return warn("expected a non-negative integer, got a " +
                std::string(kube::Value::TypeName(value->type())));
  }
  Result<int64_t> parsed = kube::ParseDecimalInteger(value->text(), 0, INT32_MAX);
  if (!parsed.ok()) {
    return warn("expected a non-negative integer, got " + value->text());
  }
  return static_cast<int32_t>(parsed.value());
}

std::string ReadString(const kube::Value* value) {
  return value != nullptr && value->type() == kube::Value::Type::kString ? value->text()
                                                                         : std::string();
}

}  // namespace quotient::podgrouper
