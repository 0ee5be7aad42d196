#include "actions/pod_affinity.h"

#include <algorithm>

#include "actions/predicates.h"

namespace quotient::actions {
namespace {

using core::Index;

bool InNamespaces(const core::PodAffinityTerm& term, const core::Pod& owner,
                  const core::Pod& other) {
  if (term.namespace_selector_all) return true;
  if (term.namespaces.empty()) return other.meta.namespace_name == owner.meta.namespace_name;
  return std::find(term.namespaces.begin(), term.namespaces.end(), other.meta.namespace_name) !=
         term.namespaces.end();
}

bool TermMatches(const core::PodAffinityTerm& term, const core::Pod& owner,
                 const core::Pod& other) {
  return InNamespaces(term, owner, other) && MatchesSelector(term.selector, other.meta.labels);
}

const std::string* DomainOf(const core::Node& node, const std::string& key) {
  auto it = node.labels.find(key);
  if (it != node.labels.end()) return &it->second;
  return key == "kubernetes.io/hostname" ? &node.name : nullptr;
}

// Calls fn(other pod, its node) for every pod holding resources (not releasing).
template <typename Fn>
void ForEachPlacedPod(const framework::Session& session, Fn fn) {
  for (size_t n = 0; n < session.state().node_count(); ++n) {
    for (Index other : session.state().node(static_cast<Index>(n)).pods) {
      if (session.state().pod(other).status == core::PodStatus::kReleasing) continue;
      fn(session.pod(other), session.node(static_cast<Index>(n)));
    }
  }
}

bool SameDomain(const core::Node& a, const core::Node& b, const std::string& key) {
  const std::string* da = DomainOf(a, key);
  const std::string* db = DomainOf(b, key);
  return da && db && *da == *db;
}

}  // namespace

std::string PodAffinityReason(const framework::Session& session, Index pod_index,
                              Index node_index) {
  const core::Pod& pod = session.pod(pod_index);
  const core::Node& node = session.node(node_index);
  for (const core::PodAffinityTerm& term : pod.affinity.required_pod_affinity) {
    bool any_match = false;
    bool match_here = false;
    ForEachPlacedPod(session, [&](const core::Pod& other, const core::Node& where) {
      if (&other == &pod || !TermMatches(term, pod, other)) return;
      any_match = true;
      match_here = match_here || SameDomain(node, where, term.topology_key);
    });
    const bool first_of_its_kind =
        !any_match && TermMatches(term, pod, pod) && DomainOf(node, term.topology_key);
    if (!match_here && !first_of_its_kind) return "node(s) didn't match pod affinity rules";
  }
  for (const core::PodAffinityTerm& term : pod.affinity.required_pod_anti_affinity) {
    bool clash = false;
    ForEachPlacedPod(session, [&](const core::Pod& other, const core::Node& where) {
      clash = clash || (&other != &pod && TermMatches(term, pod, other) &&
                        SameDomain(node, where, term.topology_key));
    });
    if (clash) return "node(s) didn't match pod anti-affinity rules";
  }
  bool rejected_by_existing = false;
  for (Index other_index : session.pods_with_anti_affinity()) {
    const framework::PodState& other_state = session.state().pod(other_index);
    if (other_index == pod_index || other_state.node == core::kNone ||
        other_state.status == core::PodStatus::kReleasing ||
        !core::IsActiveUsedStatus(other_state.status)) {
      continue;
    }
    const core::Pod& other = session.pod(other_index);
    const core::Node& where = session.node(other_state.node);
    for (const core::PodAffinityTerm& term : other.affinity.required_pod_anti_affinity) {
      rejected_by_existing = rejected_by_existing || (TermMatches(term, other, pod) &&
                                                      SameDomain(node, where, term.topology_key));
    }
  }
  if (rejected_by_existing) return "node(s) didn't satisfy existing pods' anti-affinity rules";
  return "";
}

}  // namespace quotient::actions
