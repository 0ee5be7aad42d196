// Draining: evict what must go, gang-aware, until nothing evictable is left; a drain that does
// not finish in time escalates (or, when configured, force-deletes what is left).
#include <algorithm>

#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

bool Evictable(const PodView& pod) {
  // DaemonSet pods would come straight back (they tolerate the cordon); mirror pods belong to
  // the kubelet; a terminating pod is already going.
  return !pod.daemonset && !pod.mirror && !pod.terminating;
}

void EvictOnce(const NodeView& node, const std::string& key, const std::string& uid,
               const std::string& gang, Context& ctx, NodeOutcome& out) {
  if (!ctx.evicted.insert(key).second) return;
  out.before.push_back(Evict{node.name, key, uid, gang, out.record.incident});
}

// A gang cannot run with a member missing: when one of its pods must go, all of them go, across
// the cluster, each once in the plan. The scheduler requeues the PodGroup as a whole.
void EvictGang(const NodeView& node, const PodView& pod, Context& ctx, NodeOutcome& out) {
  const auto it = ctx.fleet.gangs.find(pod.gang);
  if (it != ctx.fleet.gangs.end()) {
    std::vector<const GangMember*> members;
    for (const GangMember& m : it->second) {
      if (!m.terminating) members.push_back(&m);
    }
    std::sort(members.begin(), members.end(),
              [](const GangMember* a, const GangMember* b) { return a->key < b->key; });
    for (const GangMember* m : members) EvictOnce(node, m->key, m->uid, pod.gang, ctx, out);
  }
  EvictOnce(node, pod.key, pod.uid, pod.gang, ctx, out);  // in case the gang list missed it
}

void DrainTimedOut(const NodeView& node, const std::vector<const PodView*>& left, Context& ctx,
                   NodeOutcome& out) {
  std::string names;
  for (const PodView* p : left) names += (names.empty() ? "" : ", ") + p->key;
  const std::string after = "drain timed out after " + FormatDuration(ctx.config.drain_timeout);
  if (!ctx.config.force_delete_after_timeout) {
    EscalateNode(node, after + " with pods left: " + names, ctx, out);
    return;
  }
  for (const PodView* p : left) out.before.push_back(ForceDelete{node.name, p->key, p->uid});
  out.before.push_back(Event{node.name, EventType::kWarning, "RemediationForceDelete",
                             after + "; force-deleting " + names});
  ctx.Due(ctx.now);
}

}  // namespace

void Drain(const NodeView& node, Context& ctx, NodeOutcome& out) {
  std::vector<const PodView*> left;
  for (const PodView& p : node.pods) {
    if (Evictable(p)) left.push_back(&p);
  }
  std::sort(left.begin(), left.end(),
            [](const PodView* a, const PodView* b) { return a->key < b->key; });
  if (left.empty()) {
    StartNextRung(node, ctx, out);
    return;
  }
  const Time deadline = out.record.since + ctx.config.drain_timeout;
  if (ctx.now >= deadline) {
    DrainTimedOut(node, left, ctx, out);
    return;
  }
  for (const PodView* p : left) {
    if (p->gang.empty()) {
      EvictOnce(node, p->key, p->uid, "", ctx, out);
    } else {
      EvictGang(node, *p, ctx, out);
    }
    // A PodDisruptionBudget said no (429): the pod waits and its eviction is retried.
    if (p->pdb_blocked) {
      out.before.push_back(
          Skipped{node.name, "pdb",
                  "eviction of " + p->key + " is blocked by a PodDisruptionBudget; retrying"});
    }
  }
  ctx.Due(std::min(ctx.now + ctx.config.eviction_retry, deadline));
}

}  // namespace quotient::remediation
