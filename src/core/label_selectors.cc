#include "core/label_selectors.h"

#include <algorithm>
#include <optional>

namespace quotient::core {
namespace {

std::optional<int64_t> AsInt(const std::string& s) {
  if (s.empty() || s.size() > 18) return std::nullopt;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return std::nullopt;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return s[0] == '-' ? -v : v;
}

}  // namespace

bool MatchesLabels(const Labels& selector, const Labels& labels) {
  for (const auto& [key, value] : selector) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return true;
}

bool MatchesRequirement(const Labels& labels, const SelectorRequirement& r) {
  auto it = labels.find(r.key);
  const bool present = it != labels.end();
  const auto in_values = [&] {
    return present && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  };
  if (r.op == "In") return in_values();
  if (r.op == "NotIn") return !in_values();
  if (r.op == "Exists") return present;
  if (r.op == "DoesNotExist") return !present;
  if ((r.op == "Gt" || r.op == "Lt") && present && r.values.size() == 1) {
    const std::optional<int64_t> have = AsInt(it->second);
    const std::optional<int64_t> bound = AsInt(r.values[0]);
    if (!have || !bound) return false;
    return r.op == "Gt" ? *have > *bound : *have < *bound;
  }
  return false;
}

bool MatchesSelector(const LabelSelector& selector, const Labels& labels) {
  if (!MatchesLabels(selector.match_labels, labels)) return false;
  for (const SelectorRequirement& r : selector.match_expressions) {
    if (!MatchesRequirement(labels, r)) return false;
  }
  return true;
}

}  // namespace quotient::core
