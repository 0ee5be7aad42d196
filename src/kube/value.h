// Value: a small generic document tree that both the YAML and the JSON adapter produce, so the
// object decoders are written once against one type.
//
// Scalars keep their raw text: a number is stored exactly as written ("0.1", "1e3", "-1") and is
// parsed later by whoever knows its unit (ParseQuantity, an int32 reader), so no value ever goes
// through double. Mappings keep their keys in order of appearance; lookups are linear, which is
// cheap for the small maps Kubernetes objects are made of. A Value is a plain value type with no
// shared state; it is safe to read from several threads.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quotient::kube {

class Value {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kSequence, kMapping };

  Value() = default;  // null
  static Value Null() { return Value(); }
  static Value Bool(bool value);
  static Value Number(std::string text);  // raw text of a number token
  static Value String(std::string text);
  static Value Sequence() { return Value(Type::kSequence); }
  static Value Mapping() { return Value(Type::kMapping); }

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_mapping() const { return type_ == Type::kMapping; }
  bool is_sequence() const { return type_ == Type::kSequence; }

  // kBool only.
  bool bool_value() const { return bool_value_; }
  // kNumber: the raw token; kString: the (unescaped) string; empty otherwise.
  const std::string& text() const { return text_; }

  // kSequence: the items; kMapping: the values, parallel to keys(). Empty otherwise.
  const std::vector<Value>& items() const { return items_; }
  const std::vector<std::string>& keys() const { return keys_; }
  size_t size() const { return items_.size(); }

  // The value under `key` in a mapping, or nullptr when absent or when this is not a mapping.
  // With duplicate keys the last one wins, as in Go's encoding/json.
  const Value* Find(std::string_view key) const;

  // Building. Append is for sequences, Add for mappings (keys are not checked for duplicates).
  Value& Append(Value item);
  Value& Add(std::string key, Value value);

  // "null", "bool", "number", "string", "list", "map": for messages.
  static std::string_view TypeName(Type type);

 private:
  explicit Value(Type type) : type_(type) {}

  Type type_ = Type::kNull;
  bool bool_value_ = false;
  std::string text_;
  std::vector<Value> items_;
  std::vector<std::string> keys_;  // kMapping: keys_[i] names items_[i]
};

// Parses a YAML stream of one or more `---`-separated documents; empty documents are skipped.
// Plain scalars are resolved with YAML 1.2 core-schema rules (null, true/false, numbers); quoted
// or !!str-tagged scalars are strings. The error message names the line and column.
Result<std::vector<Value>> ParseYamlDocuments(std::string_view text);

// Parses one JSON document (simdjson on-demand; numbers keep their raw token text). The error
// message names the line when simdjson can tell where it stopped.
Result<Value> ParseJson(std::string_view text);

// Whether `text` should be read as JSON: its first non-space character is '{' or '['.
bool LooksLikeJson(std::string_view text);

}  // namespace quotient::kube
