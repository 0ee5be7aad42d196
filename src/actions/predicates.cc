#include "actions/predicates.h"

#include <algorithm>

#include "actions/pod_affinity.h"
#include "core/label_selectors.h"

namespace quotient::actions {
namespace {

using core::Index;
using core::MatchesLabels;

std::string UsableReason(const core::Node& node) {
  if (node.usable) return "";
  if (node.unusable_reason.rfind("invalid node", 0) == 0) return "node(s) had invalid input";
  if (node.unusable_reason == "node is not Ready") return "node(s) were not ready";
  if (node.unusable_reason.rfind("node is cordoned", 0) == 0) return "node(s) were unschedulable";
  const std::string condition_prefix = "node has condition ";
  if (node.unusable_reason.rfind(condition_prefix, 0) == 0) {
    return "node(s) had condition " + node.unusable_reason.substr(condition_prefix.size());
  }
  return "node(s) were unusable: " + node.unusable_reason;
}

}  // namespace

std::string MigReason(const core::Pod& pod, const core::Node& node) {
  using Kind = core::GpuSharing::Kind;
  if (pod.gpu.legacy_mig) return "node(s) can't take legacy MIG pods (annotation nvidia.com/mig-*)";
  if (pod.gpu.kind == Kind::kNone) return "";  // CPU-only pods go anywhere
  const bool mig_pod = pod.gpu.kind == Kind::kMig;
  if (!node.mig_enabled) return mig_pod ? "node(s) are not MIG-enabled" : "";
  if (mig_pod && node.legacy_mig_pods > 0) return "node(s) run legacy MIG pods";
  if (node.mig_strategy == core::MigStrategy::kSingle && pod.gpu.kind != Kind::kWhole) {
    return "node(s) have MIG strategy single and take only whole GPUs";
  }
  if (node.mig_strategy == core::MigStrategy::kMixed && !mig_pod) {
    return "node(s) have MIG strategy mixed and take only MIG instances";
  }
  return "";
}

namespace {

std::string GpuTypeReason(const core::Pod& pod, const core::Node& node) {
  if (std::string r = MigReason(pod, node); !r.empty()) return r;
  if (pod.gpu.kind == core::GpuSharing::Kind::kMemory && !node.gpu_memory_mib) {
    return "node(s) didn't report GPU memory (label nvidia.com/gpu.memory)";
  }
  return "";
}

std::string TaintReason(const core::Pod& pod, const core::Node& node) {
  for (const core::Taint& t : node.taints) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") continue;
    if (!Tolerates(pod.tolerations, t)) {
      return "node(s) had untolerated taint {" + t.key + (t.value.empty() ? "" : ": " + t.value) +
             "}";
    }
  }
  return "";
}

// Host ports clash when port and protocol match and the host IPs overlap (empty or 0.0.0.0
// overlaps everything).
bool PortsClash(const core::HostPort& a, const core::HostPort& b) {
  if (a.port != b.port || a.protocol != b.protocol) return false;
  const auto any = [](const std::string& ip) { return ip.empty() || ip == "0.0.0.0"; };
  return any(a.host_ip) || any(b.host_ip) || a.host_ip == b.host_ip;
}

std::string HostPortReason(const framework::Session& session, const core::Pod& pod, Index node) {
  if (pod.host_ports.empty()) return "";
  for (Index other : session.state().node(node).pods) {
    if (session.state().pod(other).status == core::PodStatus::kReleasing) continue;
    for (const core::HostPort& mine : pod.host_ports) {
      for (const core::HostPort& theirs : session.pod(other).host_ports) {
        if (PortsClash(mine, theirs)) {
          return "node(s) didn't have free ports for the requested pod ports";
        }
      }
    }
  }
  return "";
}

}  // namespace

bool Tolerates(const std::vector<core::Toleration>& tolerations, const core::Taint& taint) {
  for (const core::Toleration& t : tolerations) {
    if (!t.effect.empty() && t.effect != taint.effect) continue;
    if (t.op == "Exists") {
      if (t.key.empty() || t.key == taint.key) return true;
    } else if (t.key == taint.key && t.value == taint.value) {
      return true;
    }
  }
  return false;
}

bool MatchesNodeAffinity(const core::Node& node, const core::Affinity& affinity) {
  if (affinity.required_node_terms.empty()) return true;
  const core::Labels fields = {{"metadata.name", node.name}};
  for (const core::NodeSelectorTerm& term : affinity.required_node_terms) {
    if (term.match_expressions.empty() && term.match_fields.empty()) continue;  // matches nothing
    bool all = true;
    for (const core::SelectorRequirement& r : term.match_expressions) {
      all = all && MatchesRequirement(node.labels, r);
    }
    for (const core::SelectorRequirement& r : term.match_fields) {
      all = all && MatchesRequirement(fields, r);
    }
    if (all) return true;
  }
  return false;
}

std::string CheckPredicates(const framework::Session& session, Index pod_index, Index node_index) {
  const core::Pod& pod = session.pod(pod_index);
  const core::Node& node = session.node(node_index);
  const core::Job& job = session.job(pod.job);
  if (std::string r = UsableReason(node); !r.empty()) return r;
  if (node.node_pool != job.node_pool) {
    return job.node_pool.empty() ? "node(s) belong to a node pool the pod doesn't request"
                                 : "node(s) are not in node pool " + job.node_pool;
  }
  if (std::string r = GpuTypeReason(pod, node); !r.empty()) return r;
  if (std::string r = TaintReason(pod, node); !r.empty()) return r;
  if (!MatchesLabels(pod.node_selector, node.labels) || !MatchesNodeAffinity(node, pod.affinity)) {
    return "node(s) didn't match Pod's node affinity/selector";
  }
  if (std::string r = HostPortReason(session, pod, node_index); !r.empty()) return r;
  return PodAffinityReason(session, pod_index, node_index);
}

}  // namespace quotient::actions
