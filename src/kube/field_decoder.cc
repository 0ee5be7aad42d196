#include "kube/field_decoder.h"

#include <utility>

#include "kube/text_formats.h"

namespace quotient::kube {

std::string FieldPath(std::string_view parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  std::string out(parent);
  out += '.';
  out += key;
  return out;
}

std::string FieldPath(std::string_view parent, size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

void AddWarning(std::vector<core::Diagnostic>& diagnostics, std::string_view source,
                std::string object, std::string message) {
  core::Diagnostic d;
  d.severity = core::Diagnostic::Severity::kWarning;
  d.source = std::string(source);
  d.object = std::move(object);
  d.message = std::move(message);
  diagnostics.push_back(std::move(d));
}

FieldDecoder::FieldDecoder(std::string_view source, std::string object,
                           std::vector<std::string>& problems,
                           std::vector<core::Diagnostic>& diagnostics)
    : source_(source), object_(std::move(object)), problems_(problems), diagnostics_(diagnostics) {}

void FieldDecoder::Problem(std::string_view field, std::string_view message) {
  problems_.push_back(Warn(field, message));
}

std::string FieldDecoder::Warn(std::string_view field, std::string_view message) {
  core::Diagnostic d;
  d.severity = core::Diagnostic::Severity::kWarning;
  d.source = source_;
  d.object = object_;
  d.field = std::string(field);
  d.message = std::string(message);
  diagnostics_.push_back(std::move(d));
  return field.empty() ? std::string(message) : std::string(field) + ": " + std::string(message);
}

void FieldDecoder::TypeProblem(const Value& value, std::string_view field,
                               std::string_view expected) {
  std::string message =
      "expected " + std::string(expected) + ", got " + std::string(Value::TypeName(value.type()));
  if (value.type() == Value::Type::kString || value.type() == Value::Type::kNumber) {
    message += " (\"" + value.text() + "\")";
  }
  Problem(field, message);
}

const Value* FieldDecoder::Mapping(const Value* value, std::string_view field) {
  if (!Present(value)) return nullptr;
  if (value->is_mapping()) return value;
  TypeProblem(*value, field, "a map");
  return nullptr;
}

const Value* FieldDecoder::Sequence(const Value* value, std::string_view field) {
  if (!Present(value)) return nullptr;
  if (value->is_sequence()) return value;
  TypeProblem(*value, field, "a list");
  return nullptr;
}

std::optional<std::string> FieldDecoder::String(const Value* value, std::string_view field) {
  if (!Present(value)) return std::nullopt;
  if (value->type() == Value::Type::kString) return value->text();
  TypeProblem(*value, field, "a string");
  return std::nullopt;
}

std::optional<bool> FieldDecoder::Bool(const Value* value, std::string_view field) {
  if (!Present(value)) return std::nullopt;
  if (value->type() == Value::Type::kBool) return value->bool_value();
  TypeProblem(*value, field, "true or false");
  return std::nullopt;
}

std::optional<int64_t> FieldDecoder::Integer(const Value* value, std::string_view field,
                                             int64_t min, int64_t max) {
  if (!Present(value)) return std::nullopt;
  if (value->type() != Value::Type::kNumber) {
    TypeProblem(*value, field, "an integer");
    return std::nullopt;
  }
  Result<int64_t> parsed = ParseDecimalInteger(value->text(), min, max);
  if (!parsed.ok()) {
    Problem(field, parsed.message());
    return std::nullopt;
  }
  return parsed.value();
}

std::optional<int32_t> FieldDecoder::Int32(const Value* value, std::string_view field,
                                           int32_t min) {
  std::optional<int64_t> parsed = Integer(value, field, min, INT32_MAX);
  if (!parsed) return std::nullopt;
  return static_cast<int32_t>(*parsed);
}

std::optional<core::Quantity> FieldDecoder::Quantity(const Value* value, std::string_view field,
                                                     core::Scale scale, core::Rounding rounding) {
  if (!Present(value)) return std::nullopt;
  if (value->type() != Value::Type::kString && value->type() != Value::Type::kNumber) {
    TypeProblem(*value, field, "a quantity");
    return std::nullopt;
  }
  Result<core::Quantity> parsed = core::ParseQuantity(value->text(), scale, rounding);
  if (!parsed.ok()) {
    Problem(field, parsed.message() + " (\"" + value->text() + "\")");
    return std::nullopt;
  }
  return parsed.value();
}

std::optional<core::Time> FieldDecoder::Timestamp(const Value* value, std::string_view field) {
  std::optional<std::string> text = String(value, field);
  if (!text) return std::nullopt;
  Result<core::Time> parsed = ParseRfc3339(*text);
  if (!parsed.ok()) {
    Problem(field, parsed.message());
    return std::nullopt;
  }
  return parsed.value();
}

std::optional<std::chrono::seconds> FieldDecoder::Duration(const Value* value,
                                                           std::string_view field,
                                                           bool allow_negative) {
  std::optional<std::string> text = String(value, field);
  if (!text) return std::nullopt;
  Result<std::chrono::seconds> parsed = ParseGoDuration(*text);
  if (!parsed.ok()) {
    Problem(field, parsed.message());
    return std::nullopt;
  }
  if (parsed.value().count() < 0 && !allow_negative) {
    Problem(field, "negative duration (\"" + *text + "\")");
    return std::nullopt;
  }
  return parsed.value();
}

core::Labels FieldDecoder::StringMap(const Value* value, std::string_view field) {
  core::Labels out;
  const Value* map = Mapping(value, field);
  if (map == nullptr) return out;
  for (size_t i = 0; i < map->size(); ++i) {
    const std::string& key = map->keys()[i];
    const Value& entry = map->items()[i];
    if (entry.type() == Value::Type::kString) {
      out[key] = entry.text();
    } else if (entry.is_null()) {
      out[key] = "";  // `key:` with no value; Go decodes null into a string as ""
    } else {
      TypeProblem(entry, FieldPath(field, key), "a string");
    }
  }
  return out;
}

}  // namespace quotient::kube
