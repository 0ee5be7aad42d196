#include "kube/value.h"

#include <utility>

namespace quotient::kube {

Value Value::Bool(bool value) {
  Value v(Type::kBool);
  v.bool_value_ = value;
  return v;
}

Value Value::Number(std::string text) {
  Value v(Type::kNumber);
  v.text_ = std::move(text);
  return v;
}

Value Value::String(std::string text) {
  Value v(Type::kString);
  v.text_ = std::move(text);
  return v;
}

const Value* Value::Find(std::string_view key) const {
  if (type_ != Type::kMapping) return nullptr;
  for (size_t i = keys_.size(); i > 0; --i) {
    if (keys_[i - 1] == key) return &items_[i - 1];
  }
  return nullptr;
}

Value& Value::Append(Value item) {
  items_.push_back(std::move(item));
  return items_.back();
}

Value& Value::Add(std::string key, Value value) {
  keys_.push_back(std::move(key));
  items_.push_back(std::move(value));
  return items_.back();
}

std::string_view Value::TypeName(Type type) {
  switch (type) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "bool";
    case Type::kNumber:
      return "number";
    case Type::kString:
      return "string";
    case Type::kSequence:
      return "list";
    case Type::kMapping:
      return "map";
  }
  return "unknown";
}

bool LooksLikeJson(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' || c == '[';
  }
  return false;
}

}  // namespace quotient::kube
