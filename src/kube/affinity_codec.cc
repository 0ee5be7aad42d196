// spec.affinity -> core::Affinity. See affinity_codec.h for what is translated and why.
#include "kube/affinity_codec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kube/text_formats.h"

namespace quotient::kube {
namespace {

constexpr std::string_view kRequired = "requiredDuringSchedulingIgnoredDuringExecution";

// Where a requirement appears; each place allows a different set of operators.
enum class SelectorKind {
  kNodeLabels,  // nodeSelectorTerms[].matchExpressions: all six operators
  kNodeFields,  // nodeSelectorTerms[].matchFields: In, NotIn on metadata.name
  kPodLabels,   // labelSelector.matchExpressions: In, NotIn, Exists, DoesNotExist
};

bool Absent(const Value* value) { return value == nullptr || value->is_null(); }

// A string field the API server requires to be set and non-empty.
std::optional<std::string> RequiredString(FieldDecoder& d, const Value* value,
                                          const std::string& field) {
  if (Absent(value)) {
    d.Problem(field, "required, but missing");
    return std::nullopt;
  }
  std::optional<std::string> text = d.String(value, field);
  if (text && text->empty()) {
    d.Problem(field, "required, but empty");
    return std::nullopt;
  }
  return text;
}

// A list item that must be a map. Go decodes a null item into a zero-valued struct, which then
// fails validation (a required key is empty), so null is a problem here too.
const Value* RequiredMapping(FieldDecoder& d, const Value& item, const std::string& field) {
  if (item.is_null()) {
    d.Problem(field, "expected a map, got null");
    return nullptr;
  }
  return d.Mapping(&item, field);
}

// The message when `op` may not be used in `kind`; empty when it may.
std::string OperatorError(const std::string& op, SelectorKind kind) {
  const bool set_op = op == "In" || op == "NotIn";
  const bool exists_op = op == "Exists" || op == "DoesNotExist";
  const bool compare_op = op == "Gt" || op == "Lt";
  if (!set_op && !exists_op && !compare_op) return "unknown operator \"" + op + "\"";
  if (kind == SelectorKind::kNodeFields && !set_op) {
    return "operator \"" + op + "\" is not supported in matchFields (In, NotIn)";
  }
  if (kind == SelectorKind::kPodLabels && compare_op) {
    return "operator \"" + op +
           "\" is not supported in a label selector (In, NotIn, Exists, DoesNotExist)";
  }
  return {};
}

// Checks the number (and for Gt/Lt the form) of a requirement's values against its operator.
bool CheckValues(FieldDecoder& d, const core::SelectorRequirement& req, const std::string& field) {
  const std::string& op = req.op;
  if ((op == "In" || op == "NotIn") && req.values.empty()) {
    d.Problem(field, "operator " + op + " needs at least one value");
    return false;
  }
  if ((op == "Exists" || op == "DoesNotExist") && !req.values.empty()) {
    d.Problem(field, "operator " + op + " takes no values");
    return false;
  }
  if (op == "Gt" || op == "Lt") {
    if (req.values.size() != 1) {
      d.Problem(field, "operator " + op + " needs exactly one value");
      return false;
    }
    if (!ParseDecimalInteger(req.values[0], INT64_MIN, INT64_MAX).ok()) {
      d.Problem(FieldPath(field, size_t{0}),
                "operator " + op + " needs an integer, got \"" + req.values[0] + "\"");
      return false;
    }
  }
  return true;
}

// One {key, operator, values} requirement; nullopt (with a problem) when it is not valid.
std::optional<core::SelectorRequirement> DecodeRequirement(FieldDecoder& d, const Value& item,
                                                           const std::string& field,
                                                           SelectorKind kind) {
  const Value* map = RequiredMapping(d, item, field);
  if (map == nullptr) return std::nullopt;
  core::SelectorRequirement out;
  bool valid = true;

  const std::string key_field = FieldPath(field, "key");
  if (std::optional<std::string> key = RequiredString(d, map->Find("key"), key_field)) {
    out.key = std::move(*key);
    if (kind == SelectorKind::kNodeFields && out.key != "metadata.name") {
      d.Problem(key_field, "unsupported field \"" + out.key + "\" (only metadata.name)");
      valid = false;
    }
  } else {
    valid = false;
  }

  const std::string op_field = FieldPath(field, "operator");
  if (std::optional<std::string> op = RequiredString(d, map->Find("operator"), op_field)) {
    out.op = std::move(*op);
    if (std::string error = OperatorError(out.op, kind); !error.empty()) {
      d.Problem(op_field, error);
      valid = false;
    }
  } else {
    valid = false;
  }

  const std::string values_field = FieldPath(field, "values");
  const Value* values_value = map->Find("values");
  const Value* values = d.Sequence(values_value, values_field);
  if (values == nullptr && !Absent(values_value)) valid = false;
  for (size_t i = 0; values != nullptr && i < values->size(); ++i) {
    const Value& value = values->items()[i];
    if (value.is_null()) {
      out.values.emplace_back();  // Go decodes a null string as ""
    } else if (std::optional<std::string> text = d.String(&value, FieldPath(values_field, i))) {
      out.values.push_back(std::move(*text));
    } else {
      valid = false;
    }
  }

  if (!valid || !CheckValues(d, out, values_field)) return std::nullopt;
  return out;
}

// Appends the requirements of the list at `list` to `out`. Returns false when the list or any
// requirement in it was not valid (each already a problem).
bool DecodeRequirements(FieldDecoder& d, const Value* list, const std::string& field,
                        SelectorKind kind, std::vector<core::SelectorRequirement>& out) {
  const Value* items = d.Sequence(list, field);
  if (items == nullptr) return Absent(list);
  bool valid = true;
  for (size_t i = 0; i < items->size(); ++i) {
    std::optional<core::SelectorRequirement> req =
        DecodeRequirement(d, items->items()[i], FieldPath(field, i), kind);
    if (req) {
      out.push_back(std::move(*req));
    } else {
      valid = false;
    }
  }
  return valid;
}

// A metav1.LabelSelector; nullopt when any part of it was not valid.
std::optional<core::LabelSelector> DecodeSelector(FieldDecoder& d, const Value& map,
                                                  const std::string& field) {
  core::LabelSelector out;
  const std::string labels_field = FieldPath(field, "matchLabels");
  const Value* labels = map.Find("matchLabels");
  bool valid = Absent(labels) || labels->is_mapping();
  for (size_t i = 0; valid && labels != nullptr && i < labels->size(); ++i) {
    const Value& label = labels->items()[i];
    // StringMap reports and leaves out a value that is not a string; the selector would be
    // looser than written.
    if (!label.is_null() && label.type() != Value::Type::kString) valid = false;
  }
  out.match_labels = d.StringMap(labels, labels_field);
  if (!DecodeRequirements(d, map.Find("matchExpressions"), FieldPath(field, "matchExpressions"),
                          SelectorKind::kPodLabels, out.match_expressions)) {
    valid = false;
  }
  if (!valid) return std::nullopt;
  return out;
}

void DecodeNodeAffinity(FieldDecoder& d, const Value* value, const std::string& field,
                        core::Affinity& out) {
  const Value* node_affinity = d.Mapping(value, field);
  if (node_affinity == nullptr) return;
  const std::string required_field = FieldPath(field, kRequired);
  const Value* required = d.Mapping(node_affinity->Find(kRequired), required_field);
  if (required == nullptr) return;

  const std::string terms_field = FieldPath(required_field, "nodeSelectorTerms");
  const Value* terms_value = required->Find("nodeSelectorTerms");
  const Value* terms = d.Sequence(terms_value, terms_field);
  if (terms == nullptr && !Absent(terms_value)) return;  // not a list: already a problem
  bool all_valid = true;
  for (size_t i = 0; terms != nullptr && i < terms->size(); ++i) {
    const std::string term_field = FieldPath(terms_field, i);
    const Value& item = terms->items()[i];
    if (item.is_null()) continue;  // a null term matches no node
    const Value* term = d.Mapping(&item, term_field);
    if (term == nullptr) {
      all_valid = false;
      continue;
    }
    core::NodeSelectorTerm decoded;
    const bool labels_valid = DecodeRequirements(
        d, term->Find("matchExpressions"), FieldPath(term_field, "matchExpressions"),
        SelectorKind::kNodeLabels, decoded.match_expressions);
    const bool fields_valid =
        DecodeRequirements(d, term->Find("matchFields"), FieldPath(term_field, "matchFields"),
                           SelectorKind::kNodeFields, decoded.match_fields);
    if (!labels_valid || !fields_valid) {
      all_valid = false;
      continue;
    }
    if (decoded.match_expressions.empty() && decoded.match_fields.empty()) continue;
    out.required_node_terms.push_back(std::move(decoded));
  }
  // Kubernetes ORs the terms and skips empty ones, so with none left no node matches. Left
  // unreported, the empty list would read as "no node affinity" in the core.
  if (all_valid && out.required_node_terms.empty()) {
    d.Problem(terms_field, "no term with a requirement, so no node can match");
  }
}

// One required pod (anti-)affinity term; nullopt when it is not valid (a problem) or, for
// anti-affinity, has no effect.
std::optional<core::PodAffinityTerm> DecodePodAffinityTerm(FieldDecoder& d, const Value& item,
                                                           const std::string& field, bool anti) {
  const Value* term = RequiredMapping(d, item, field);
  if (term == nullptr) return std::nullopt;
  core::PodAffinityTerm out;
  bool valid = true;

  const std::string selector_field = FieldPath(field, "labelSelector");
  const Value* selector_value = term->Find("labelSelector");
  const bool matches_no_pod = Absent(selector_value);
  if (const Value* selector = d.Mapping(selector_value, selector_field)) {
    std::optional<core::LabelSelector> decoded = DecodeSelector(d, *selector, selector_field);
    if (decoded) {
      out.selector = std::move(*decoded);
    } else {
      valid = false;
    }
  } else if (!matches_no_pod) {
    valid = false;  // not a map
  }

  const std::string namespaces_field = FieldPath(field, "namespaces");
  const Value* namespaces_value = term->Find("namespaces");
  const Value* namespaces = d.Sequence(namespaces_value, namespaces_field);
  if (namespaces == nullptr && !Absent(namespaces_value)) valid = false;
  for (size_t i = 0; namespaces != nullptr && i < namespaces->size(); ++i) {
    const std::string name_field = FieldPath(namespaces_field, i);
    if (std::optional<std::string> name = RequiredString(d, &namespaces->items()[i], name_field)) {
      out.namespaces.push_back(std::move(*name));
    } else {
      valid = false;
    }
  }

  // {} (or a selector with no requirements) selects every namespace; anything more needs the
  // labels of Namespace objects, which are not read.
  const std::string ns_selector_field = FieldPath(field, "namespaceSelector");
  const Value* ns_selector_value = term->Find("namespaceSelector");
  if (const Value* ns_selector = d.Mapping(ns_selector_value, ns_selector_field)) {
    std::optional<core::LabelSelector> decoded = DecodeSelector(d, *ns_selector, ns_selector_field);
    if (!decoded) {
      valid = false;
    } else if (decoded->match_labels.empty() && decoded->match_expressions.empty()) {
      out.namespace_selector_all = true;
    } else {
      d.Problem(ns_selector_field, "namespaceSelector with labels is not supported");
      valid = false;
    }
  } else if (!Absent(ns_selector_value)) {
    valid = false;
  }

  const std::string topology_field = FieldPath(field, "topologyKey");
  if (std::optional<std::string> key =
          RequiredString(d, term->Find("topologyKey"), topology_field)) {
    out.topology_key = std::move(*key);
  } else {
    valid = false;
  }

  if (!valid) return std::nullopt;
  if (matches_no_pod) {
    // A nil labelSelector matches no pod: an anti-affinity term then repels nothing, while an
    // affinity term can never be met (not even by the pod itself, as the first of its group).
    if (!anti) {
      d.Problem(selector_field, "missing, so the term matches no pod and can never be satisfied");
    }
    return std::nullopt;
  }
  return out;
}

void DecodePodAffinity(FieldDecoder& d, const Value* value, const std::string& field, bool anti,
                       std::vector<core::PodAffinityTerm>& out) {
  const Value* pod_affinity = d.Mapping(value, field);
  if (pod_affinity == nullptr) return;
  const std::string terms_field = FieldPath(field, kRequired);
  const Value* terms = d.Sequence(pod_affinity->Find(kRequired), terms_field);
  if (terms == nullptr) return;
  for (size_t i = 0; i < terms->size(); ++i) {
    std::optional<core::PodAffinityTerm> term =
        DecodePodAffinityTerm(d, terms->items()[i], FieldPath(terms_field, i), anti);
    if (term) out.push_back(std::move(*term));
  }
}

}  // namespace

core::Affinity DecodeAffinity(FieldDecoder& d, const Value* affinity, std::string_view field) {
  core::Affinity out;
  const Value* map = d.Mapping(affinity, field);
  if (map == nullptr) return out;
  // Preferred terms (preferredDuringSchedulingIgnoredDuringExecution) are not read at all.
  DecodeNodeAffinity(d, map->Find("nodeAffinity"), FieldPath(field, "nodeAffinity"), out);
  DecodePodAffinity(d, map->Find("podAffinity"), FieldPath(field, "podAffinity"), false,
                    out.required_pod_affinity);
  DecodePodAffinity(d, map->Find("podAntiAffinity"), FieldPath(field, "podAntiAffinity"), true,
                    out.required_pod_anti_affinity);
  return out;
}

std::optional<core::LabelSelector> DecodeLabelSelector(FieldDecoder& d, const Value& selector,
                                                       std::string_view field) {
  return DecodeSelector(d, selector, std::string(field));
}

}  // namespace quotient::kube
