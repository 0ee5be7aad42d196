// ParseJson: simdjson on-demand -> Value. The on-demand API is used because it hands out the raw
// token of a number ("0.1" stays "0.1"); the DOM API only offers doubles and 64-bit integers.
// Only simdjson's error-code interface is used, so no exception can escape.
#include <simdjson.h>

#include <algorithm>
#include <string>
#include <utility>

#include "kube/value.h"

namespace quotient::kube {
namespace {

namespace od = simdjson::ondemand;

constexpr int kMaxDepth = 256;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The JSON number grammar (RFC 8259): -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumber(std::string_view s) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    return i > start;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == s.size();
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\t' || s.back() == '\n' || s.back() == '\r')) {
    s.remove_suffix(1);
  }
  return s;
}

// The raw text of the current token: value::raw_json_token() cannot fail, document's can.
simdjson::error_code RawToken(od::value& node, std::string_view& token) {
  token = node.raw_json_token();
  return simdjson::SUCCESS;
}
simdjson::error_code RawToken(od::document& node, std::string_view& token) {
  return node.raw_json_token().get(token);
}

// Converts a scalar from a value or document (both offer the same accessors).
template <typename Node>
simdjson::error_code ConvertScalar(Node& node, od::json_type type, Value& out) {
  switch (type) {
    case od::json_type::number: {
      std::string_view token;
      if (auto error = RawToken(node, token)) return error;
      token = TrimRight(token);
      if (!IsJsonNumber(token)) return simdjson::NUMBER_ERROR;
      out = Value::Number(std::string(token));
      return simdjson::SUCCESS;
    }
    case od::json_type::string: {
      std::string_view text;
      if (auto error = node.get_string().get(text)) return error;
      out = Value::String(std::string(text));
      return simdjson::SUCCESS;
    }
    case od::json_type::boolean: {
      bool flag = false;
      if (auto error = node.get_bool().get(flag)) return error;
      out = Value::Bool(flag);
      return simdjson::SUCCESS;
    }
    case od::json_type::null: {
      bool is_null = false;
      if (auto error = node.is_null().get(is_null)) return error;
      if (!is_null) return simdjson::N_ATOM_ERROR;
      out = Value::Null();
      return simdjson::SUCCESS;
    }
    default:
      return simdjson::INCORRECT_TYPE;
  }
}

simdjson::error_code Convert(od::value node, int depth, Value& out);

simdjson::error_code ConvertObject(od::object object, int depth, Value& out) {
  out = Value::Mapping();
  for (auto field_result : object) {
    od::field field;
    if (auto error = std::move(field_result).get(field)) return error;
    std::string_view key;
    if (auto error = field.unescaped_key().get(key)) return error;
    std::string key_copy(key);  // the key view is invalidated by reading the value
    Value child;
    if (auto error = Convert(field.value(), depth + 1, child)) return error;
    out.Add(std::move(key_copy), std::move(child));
  }
  return simdjson::SUCCESS;
}

simdjson::error_code ConvertArray(od::array array, int depth, Value& out) {
  out = Value::Sequence();
  for (auto item_result : array) {
    od::value item;
    if (auto error = std::move(item_result).get(item)) return error;
    Value child;
    if (auto error = Convert(item, depth + 1, child)) return error;
    out.Append(std::move(child));
  }
  return simdjson::SUCCESS;
}

simdjson::error_code Convert(od::value node, int depth, Value& out) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::json_type type;
  if (auto error = node.type().get(type)) return error;
  if (type == od::json_type::object) {
    od::object object;
    if (auto error = node.get_object().get(object)) return error;
    return ConvertObject(object, depth, out);
  }
  if (type == od::json_type::array) {
    od::array array;
    if (auto error = node.get_array().get(array)) return error;
    return ConvertArray(array, depth, out);
  }
  return ConvertScalar(node, type, out);
}

simdjson::error_code ConvertDocument(od::document& doc, Value& out) {
  od::json_type type;
  if (auto error = doc.type().get(type)) return error;
  if (type == od::json_type::object || type == od::json_type::array) {
    od::value root;
    if (auto error = doc.get_value().get(root)) return error;
    if (auto error = Convert(root, 0, out)) return error;
  } else if (auto error = ConvertScalar(doc, type, out)) {
    return error;
  }
  // current_location() reports OUT_OF_BOUNDS exactly when the whole input has been consumed.
  const char* location = nullptr;
  return doc.current_location().get(location) == simdjson::OUT_OF_BOUNDS
             ? simdjson::SUCCESS
             : simdjson::TRAILING_CONTENT;
}

// "line N: " for where the parser stopped, when it can say.
std::string WhereStopped(od::document& doc, const simdjson::padded_string& json) {
  const char* location = nullptr;
  if (doc.current_location().get(location) != simdjson::SUCCESS || location == nullptr) return "";
  const char* begin = json.data();
  if (location < begin || location > begin + json.size()) return "";
  const auto lines = std::count(begin, location, '\n');
  return "line " + std::to_string(lines + 1) + ": ";
}

}  // namespace

Result<Value> ParseJson(std::string_view text) {
  const simdjson::padded_string json(text);
  od::parser parser;
  od::document doc;
  if (auto error = parser.iterate(json).get(doc)) {
    return Result<Value>::Error(simdjson::error_message(error));
  }
  Value out;
  if (auto error = ConvertDocument(doc, out)) {
    return Result<Value>::Error(WhereStopped(doc, json) + simdjson::error_message(error));
  }
  return out;
}

}  // namespace quotient::kube
