// ParseYamlDocuments: yaml-cpp -> Value. yaml-cpp reports errors by throwing; every exception is
// caught here and turned into an error Result, so nothing escapes into the decoders.
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <exception>
#include <string>

#include "kube/value.h"

namespace quotient::kube {
namespace {

// Nesting and size limits: aliases can make a small text expand exponentially ("billion laughs")
// or, in broken input, refer to themselves, so the conversion counts what it builds.
constexpr int kMaxDepth = 256;

struct Budget {
  size_t nodes_left;
};

bool AllOf(std::string_view s, bool (*pred)(char)) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}
bool IsDigit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }
bool IsHexDigit(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool IsOctalDigit(char c) { return c >= '0' && c <= '7'; }

// YAML 1.2 core schema number forms: decimal ints and floats, 0o / 0x ints, .inf and .nan.
bool IsYamlNumber(std::string_view s) {
  if (s.starts_with("0o")) return AllOf(s.substr(2), IsOctalDigit);
  if (s.starts_with("0x")) return AllOf(s.substr(2), IsHexDigit);
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s == ".inf" || s == ".Inf" || s == ".INF" || s == ".nan" || s == ".NaN" || s == ".NAN") {
    return true;
  }
  size_t i = 0;
  size_t int_digits = 0;
  size_t frac_digits = 0;
  while (i < s.size() && IsDigit(s[i])) {
    ++i;
    ++int_digits;
  }
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) {
      ++i;
      ++frac_digits;
    }
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    return AllOf(s.substr(i), IsDigit);
  }
  return i == s.size();
}

Value ResolvePlainScalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return Value::Null();
  if (s == "true" || s == "True" || s == "TRUE") return Value::Bool(true);
  if (s == "false" || s == "False" || s == "FALSE") return Value::Bool(false);
  if (IsYamlNumber(s)) return Value::Number(s);
  return Value::String(s);
}

Value ConvertScalar(const YAML::Node& node) {
  const std::string& tag = node.Tag();
  // "!" marks a quoted scalar; an explicit !!str tag also forces a string.
  if (tag == "!" || tag == "tag:yaml.org,2002:str") return Value::String(node.Scalar());
  return ResolvePlainScalar(node.Scalar());
}

Result<Value> Convert(const YAML::Node& node, int depth, Budget& budget) {
  const auto error = [&](const std::string& message) {
    return Result<Value>::Error("line " + std::to_string(node.Mark().line + 1) + ": " + message);
  };
  if (depth > kMaxDepth) return error("nesting too deep");
  if (budget.nodes_left == 0) return error("document too large after alias expansion");
  --budget.nodes_left;
  switch (node.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      return Value::Null();
    case YAML::NodeType::Scalar:
      return ConvertScalar(node);
    case YAML::NodeType::Sequence: {
      Value out = Value::Sequence();
      for (const YAML::Node& child : node) {
        Result<Value> item = Convert(child, depth + 1, budget);
        if (!item.ok()) return item;
        out.Append(std::move(item).value());
      }
      return out;
    }
    case YAML::NodeType::Map: {
      Value out = Value::Mapping();
      for (const auto& entry : node) {
        if (!entry.first.IsScalar()) return error("mapping key is not a scalar");
        Result<Value> item = Convert(entry.second, depth + 1, budget);
        if (!item.ok()) return item;
        out.Add(entry.first.Scalar(), std::move(item).value());
      }
      return out;
    }
  }
  return error("unknown YAML node type");
}

}  // namespace

Result<std::vector<Value>> ParseYamlDocuments(std::string_view text) {
  using ResultType = Result<std::vector<Value>>;
  try {
    const std::vector<YAML::Node> nodes = YAML::LoadAll(std::string(text));
    std::vector<Value> documents;
    documents.reserve(nodes.size());
    Budget budget{16 * text.size() + 1024};
    for (const YAML::Node& node : nodes) {
      if (!node.IsDefined() || node.IsNull()) continue;  // empty document
      Result<Value> value = Convert(node, 0, budget);
      if (!value.ok()) return ResultType::Error(value.message());
      documents.push_back(std::move(value).value());
    }
    return documents;
  } catch (const YAML::Exception& e) {
    if (e.mark.is_null()) return ResultType::Error(e.msg);
    return ResultType::Error("line " + std::to_string(e.mark.line + 1) + ", column " +
                             std::to_string(e.mark.column + 1) + ": " + e.msg);
  } catch (const std::exception& e) {
    return ResultType::Error(e.what());
  }
}

}  // namespace quotient::kube
