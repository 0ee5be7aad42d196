#include "kubeclient/raw_object.h"

#include <simdjson.h>

namespace quotient::kubeclient {
namespace {

namespace od = simdjson::ondemand;

Status ReadLabels(od::value value, std::map<std::string, std::string>& labels) {
  if (value.is_null()) return Status::Ok();
  od::object object;
  if (value.get_object().get(object) != simdjson::SUCCESS) {
    return Status::Error("metadata.labels: expected an object");
  }
  for (auto label : object) {
    std::string_view key;
    std::string_view text;
    if (label.unescaped_key().get(key) != simdjson::SUCCESS ||
        label.value().get_string().get(text) != simdjson::SUCCESS) {
      return Status::Error("metadata.labels: expected string values");
    }
    labels.emplace(std::string(key), std::string(text));
  }
  return Status::Ok();
}

Status ReadOwners(od::value value, std::vector<OwnerReference>& owners) {
  if (value.is_null()) return Status::Ok();
  od::array array;
  if (value.get_array().get(array) != simdjson::SUCCESS) {
    return Status::Error("metadata.ownerReferences: expected an array");
  }
  for (auto item : array) {
    od::object object;
    if (item.get_object().get(object) != simdjson::SUCCESS) {
      return Status::Error("metadata.ownerReferences: expected objects");
    }
    OwnerReference owner;
    for (auto field : object) {
      std::string_view key;
      if (field.unescaped_key().get(key) != simdjson::SUCCESS) return Status::Error("bad key");
      if (key == "controller") {
        bool controller = false;
        if (field.value().get_bool().get(controller) == simdjson::SUCCESS) {
          owner.controller = controller;
        }
        continue;
      }
      std::string* target = key == "apiVersion" ? &owner.api_version
                            : key == "kind"     ? &owner.kind
                            : key == "name"     ? &owner.name
                            : key == "uid"      ? &owner.uid
                                                : nullptr;
      std::string_view text;
      if (target != nullptr && field.value().get_string().get(text) == simdjson::SUCCESS) {
        *target = text;
      }
    }
    owners.push_back(std::move(owner));
  }
  return Status::Ok();
}

Status ReadMetadata(od::object metadata, RawObject& out) {
  for (auto field : metadata) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return Status::Error("bad key");
    std::string* target = nullptr;
    if (key == "namespace") target = &out.namespace_name;
    if (key == "name") target = &out.name;
    if (key == "uid") target = &out.uid;
    if (key == "resourceVersion") target = &out.resource_version;
    if (key == "deletionTimestamp") {
      out.deleting = !field.value().is_null();
      continue;
    }
    if (key == "labels") {
      if (Status s = ReadLabels(field.value(), out.labels); !s.ok()) return s;
      continue;
    }
    if (key == "ownerReferences") {
      if (Status s = ReadOwners(field.value(), out.owners); !s.ok()) return s;
      continue;
    }
    if (target == nullptr) continue;
    std::string_view text;
    if (field.value().get_string().get(text) != simdjson::SUCCESS) {
      return Status::Error("metadata." + std::string(key) + ": expected a string");
    }
    *target = text;
  }
  return Status::Ok();
}

}  // namespace

std::string RawObject::Key() const {
  return namespace_name.empty() ? name : namespace_name + "/" + name;
}

Result<RawObject> ReadObjectWithoutName(std::string_view json) {
  using R = Result<RawObject>;
  od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  od::object top;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(top) != simdjson::SUCCESS) {
    return R::Error("object: not a JSON object");
  }
  RawObject out;
  od::object metadata;
  if (top.find_field_unordered("metadata").get_object().get(metadata) != simdjson::SUCCESS) {
    return R::Error("object: metadata: missing or not an object");
  }
  if (Status s = ReadMetadata(metadata, out); !s.ok()) return R::Error("object: " + s.message());
  out.json = std::string(json);
  return out;
}

Result<RawObject> ReadRawObject(std::string_view json) {
  Result<RawObject> object = ReadObjectWithoutName(json);
  if (object.ok() && object->name.empty()) {
    return Result<RawObject>::Error("object: metadata.name: missing");
  }
  return object;
}

Result<ListPage> ParseListPage(std::string_view json,
                               const std::function<void(RawObject&&)>& on_item) {
  using R = Result<ListPage>;
  od::parser parser;
  simdjson::padded_string padded(json);
  od::document doc;
  od::object top;
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS ||
      doc.get_object().get(top) != simdjson::SUCCESS) {
    return R::Error("list: not a JSON object");
  }
  ListPage page;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return R::Error("list: bad key");
    if (key == "metadata") {
      od::object metadata;
      if (field.value().get_object().get(metadata) != simdjson::SUCCESS) {
        return R::Error("list: metadata: expected an object");
      }
      for (auto m : metadata) {
        std::string_view mkey;
        std::string_view text;
        if (m.unescaped_key().get(mkey) != simdjson::SUCCESS) return R::Error("list: bad key");
        if (mkey != "resourceVersion" && mkey != "continue") continue;
        if (m.value().get_string().get(text) != simdjson::SUCCESS) {
          return R::Error("list: metadata." + std::string(mkey) + ": expected a string");
        }
        (mkey == "continue" ? page.continue_token : page.resource_version) = text;
      }
    } else if (key == "items") {
      od::array items;
      if (field.value().get_array().get(items) != simdjson::SUCCESS) {
        // "items": null is how an empty list of some kinds is written.
        continue;
      }
      size_t index = 0;
      for (auto item : items) {
        od::object object;
        std::string_view raw;
        if (item.get_object().get(object) != simdjson::SUCCESS ||
            object.raw_json().get(raw) != simdjson::SUCCESS) {
          return R::Error("list: items[" + std::to_string(index) + "]: expected an object");
        }
        Result<RawObject> parsed = ReadRawObject(raw);
        if (!parsed.ok()) {
          return R::Error("list: items[" + std::to_string(index) + "]: " + parsed.message());
        }
        on_item(std::move(parsed).value());
        ++index;
      }
    }
  }
  return page;
}

}  // namespace quotient::kubeclient
