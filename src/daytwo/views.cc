#include "daytwo/views.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "core/gpu_sharing.h"
#include "core/node_health.h"
#include "core/quantity.h"
#include "framework/decision.h"

namespace quotient::daytwo {
namespace {

using core::Quantity;
using core::ShareResource;

std::string Amount(ShareResource r, Quantity q) {
  switch (r) {
    case ShareResource::kGpu:
    case ShareResource::kCpu:
      return core::FormatDecimal(q.value(), 3);
    case ShareResource::kMemory:
      return core::FormatDecimal(q.value() / 100'000'000, 1);
  }
  return "";
}

Document BoundDoc(ShareResource r, const core::Bound& b) {
  return b.is_unlimited() ? Document(nullptr) : Document(Amount(r, b.amount()));
}

std::string Gpus(Quantity milli) { return core::FormatDecimal(milli.value(), 3); }

const scheduler::QueueReport* FindQueue(const scheduler::RunReport& report,
                                        const std::string& name) {
  for (const auto& q : report.queues) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

const core::QueueObject* FindQueueObject(const core::ClusterObjects& objects,
                                         const std::string& name) {
  for (const auto& q : objects.queues) {
    if (q.meta.name == name) return &q;
  }
  return nullptr;
}

std::string Key(const core::ObjectMeta& meta) {
  return meta.namespace_name.empty() ? meta.name : meta.namespace_name + "/" + meta.name;
}

// What one pod holds or asks for in GPUs (milli): whole devices, or its portions of shared ones.
Quantity PodGpus(const core::PodObject& pod) {
  core::ResourceVector request;
  for (const auto& c : pod.containers) request += c.requests;
  Result<core::GpuSharing> sharing = core::ReadGpuSharing(pod, request);
  if (sharing.ok() && sharing->kind == core::GpuSharing::Kind::kFraction) {
    return Quantity(sharing->portion_milli.value() * sharing->num_devices);
  }
  return request.gpu_milli;
}

bool Finished(const core::PodObject& pod) {
  return pod.phase == core::PodPhase::kSucceeded || pod.phase == core::PodPhase::kFailed;
}

// Why a node takes no new pod, "" when it does.
std::string NodeTrouble(const core::NodeObject& node) {
  for (const core::Taint& t : node.taints) {
    if (t.key == core::kHardwareRepairTaint) return "waiting for hardware repair";
  }
  for (const core::Taint& t : node.taints) {
    if (t.key == core::kUnhealthyTaint) return "in remediation (" + t.value + ")";
  }
  if (!node.fault_conditions.empty()) {
    return "fault " + node.fault_conditions.front().type + " (" +
           node.fault_conditions.front().reason + ")";
  }
  if (!node.ready) return "not ready";
  if (node.unschedulable) return "cordoned";
  if (!node.bad_conditions.empty()) return node.bad_conditions.front();
  return "";
}

std::string LabelOf(const core::ObjectMeta& meta, const std::string& key) {
  auto it = meta.labels.find(key);
  return it == meta.labels.end() ? "" : it->second;
}

struct NodeUse {
  const core::NodeObject* node = nullptr;
  Quantity total;  // allocatable GPUs, milli
  Quantity used;
  std::map<std::string, Quantity> by_queue;  // whole GPUs
  // shared GPU group -> (queue, portion) of each pod on it
  std::map<std::string, std::vector<std::pair<std::string, Quantity>>> shared;
};

// GPU use per node from the pods bound to it; queues from the report (pods of other schedulers
// count as "(other)").
std::map<std::string, NodeUse> UsePerNode(const scheduler::RunReport& report,
                                          const core::ClusterObjects& objects) {
  std::map<std::string, const scheduler::PodReport*> reported;
  for (const auto& p : report.pods) reported[p.pod] = &p;
  std::map<std::string, NodeUse> use;
  for (const auto& n : objects.nodes) {
    NodeUse& u = use[n.meta.name];
    u.node = &n;
    u.total = n.allocatable.gpu_milli;
  }
  for (const auto& pod : objects.pods) {
    if (pod.node_name.empty() || Finished(pod)) continue;
    auto it = use.find(pod.node_name);
    if (it == use.end()) continue;
    const Quantity gpus = PodGpus(pod);
    if (gpus.is_zero()) continue;
    auto r = reported.find(Key(pod.meta));
    const std::string queue = r == reported.end() ? "(other)" : r->second->queue;
    it->second.used = it->second.used + gpus;
    if (r != reported.end() && !r->second->gpu_groups.empty()) {
      it->second.shared[r->second->gpu_groups.front()].push_back({queue, gpus});
    } else {
      it->second.by_queue[queue] = it->second.by_queue[queue] + gpus;
    }
  }
  return use;
}

}  // namespace

std::vector<QueueRow> QueueTree(const scheduler::RunReport& report) {
  std::vector<QueueRow> rows;
  std::set<std::string> known;
  for (const auto& q : report.queues) known.insert(q.name);
  std::vector<std::string> roots;
  for (const auto& q : report.queues) {
    if (q.parent.empty() || known.count(q.parent) == 0) roots.push_back(q.name);
  }
  std::sort(roots.begin(), roots.end());
  std::set<std::string> seen;  // a parent cycle must not loop
  std::function<void(const std::string&, int)> visit = [&](const std::string& name, int depth) {
    if (!seen.insert(name).second) return;
    const scheduler::QueueReport* q = FindQueue(report, name);
    rows.push_back({name, depth, q == nullptr ? "" : q->parent});
    if (q == nullptr) return;
    for (const std::string& child : q->children) visit(child, depth + 1);
  };
  for (const std::string& root : roots) visit(root, 0);
  return rows;
}

Document QueuesDocument(const scheduler::RunReport& report, const core::ClusterObjects& objects) {
  Document queues = Document::array();
  for (const QueueRow& row : QueueTree(report)) {
    const scheduler::QueueReport& q = *FindQueue(report, row.name);
    const core::QueueObject* object = FindQueueObject(objects, row.name);
    Document doc = {{"name", q.name},
                    {"parent", q.parent.empty() ? Document(nullptr) : Document(q.parent)},
                    {"depth", row.depth},
                    {"priority", q.priority}};
    for (ShareResource r : core::kShareResources) {
      const Quantity deserved =
          q.deserved[r].is_unlimited() ? Quantity::Max() : q.deserved[r].amount();
      Document res = {
          {"deserved", BoundDoc(r, q.deserved[r])},
          {"limit", BoundDoc(r, q.limit[r])},
          {"overQuotaWeight", object == nullptr
                                  ? Document(nullptr)
                                  : Document(core::FormatDecimal(
                                        object->resources[r].over_quota_weight_milli.value(), 3))},
          {"fairShare", Amount(r, q.fair_share[r])},
          {"allocated", Amount(r, q.allocated[r])},
          {"requested", Amount(r, q.requested[r])},
          // Over its deserved share: what it holds of others' unused quota.
          {"borrowing", q.allocated[r].value() > deserved.value()
                            ? Amount(r, Quantity(q.allocated[r].value() - deserved.value()))
                            : "0"},
      };
      doc[std::string(core::ShareResourceName(r))] = res;
    }
    queues.push_back(doc);
  }
  // Who borrows from whom: among the children of one parent, those over their deserved GPUs use
  // what those under theirs leave.
  Document lending = Document::array();
  std::map<std::string, std::vector<const scheduler::QueueReport*>> siblings;
  for (const auto& q : report.queues) siblings[q.parent].push_back(&q);
  for (auto& [parent, children] : siblings) {
    std::sort(children.begin(), children.end(),
              [](const auto* a, const auto* b) { return a->name < b->name; });
    std::vector<std::string> borrowers, lenders;
    for (const auto* c : children) {
      const auto& d = c->deserved[ShareResource::kGpu];
      if (d.is_unlimited()) continue;
      const int64_t over = c->allocated[ShareResource::kGpu].value() - d.amount().value();
      if (over > 0) {
        borrowers.push_back(c->name + " borrows " + Gpus(Quantity(over)) +
                            " GPUs beyond its deserved " + Gpus(d.amount()));
      } else if (over < 0) {
        lenders.push_back(c->name + " leaves " + Gpus(Quantity(-over)) + " of its deserved " +
                          Gpus(d.amount()) + " GPUs unused");
      }
    }
    if (borrowers.empty()) continue;
    std::string text = (parent.empty() ? std::string("top level") : "under " + parent) + ": ";
    for (size_t i = 0; i < borrowers.size(); ++i) text += (i ? "; " : "") + borrowers[i];
    if (!lenders.empty()) {
      text += ", from ";
      for (size_t i = 0; i < lenders.size(); ++i) text += (i ? "; " : "") + lenders[i];
    } else {
      text += ", from capacity no queue deserves";
    }
    lending.push_back(text);
  }
  return {{"queues", queues}, {"borrowing", lending}};
}

Result<Document> WhyDocument(const std::string& target, const scheduler::RunReport& report,
                             const scheduler::RunReport& current,
                             const core::ClusterObjects& objects,
                             const std::string& node_pool_label) {
  const scheduler::PodReport* pod = nullptr;
  for (const auto& p : report.pods) {
    if (p.pod == target) pod = &p;
  }
  const std::string group_key = pod != nullptr ? pod->pod_group : target;
  const scheduler::PodGroupReport* group = nullptr;
  for (const auto& g : report.pod_groups) {
    if (g.pod_group == group_key) group = &g;
  }
  if (pod == nullptr && group == nullptr) {
    return Result<Document>::Error(
        "no pod or PodGroup " + target +
        " of this scheduler (give namespace/name, or -n; is its schedulerName the one given by "
        "--scheduler-name?)");
  }
  const std::string queue_name = pod != nullptr ? pod->queue : group->queue;
  const std::string status = pod != nullptr ? pod->status : group->status;
  std::vector<std::string> reasons;
  if (pod != nullptr && !pod->reason.empty()) reasons.push_back(pod->reason);
  if (pod == nullptr && group != nullptr) reasons = group->reasons;

  // The GPUs one pending pod of it asks for, and how many of its pods still wait.
  Quantity per_pod;
  int waiting = 0;
  std::map<std::string, const core::PodObject*> by_key;  // one pass, not one per waiting pod
  for (const auto& o : objects.pods) by_key[Key(o.meta)] = &o;
  for (const auto& p : report.pods) {
    const bool mine = pod != nullptr
                          ? p.pod == pod->pod || (!group_key.empty() && p.pod_group == group_key)
                          : p.pod_group == group_key;
    if (!mine || p.status != "Pending") continue;
    ++waiting;
    if (auto it = by_key.find(p.pod); it != by_key.end()) {
      per_pod = std::max(per_pod, PodGpus(*it->second));
    }
  }
  const std::string pool = group != nullptr ? group->node_pool : "";

  // The nodes closest to fitting it: the most free GPUs, among nodes that take pods, in its pool.
  std::map<std::string, NodeUse> use = UsePerNode(current, objects);
  std::vector<const NodeUse*> candidates;
  for (const auto& [name, u] : use) {
    if (!NodeTrouble(*u.node).empty()) continue;
    if (!node_pool_label.empty() && LabelOf(u.node->meta, node_pool_label) != pool) continue;
    candidates.push_back(&u);
  }
  std::sort(candidates.begin(), candidates.end(), [](const NodeUse* a, const NodeUse* b) {
    const int64_t fa = a->total.value() - a->used.value(), fb = b->total.value() - b->used.value();
    return fa != fb ? fa > fb : a->node->meta.name < b->node->meta.name;
  });
  Document nodes = Document::array();
  int roomy = 0;  // nodes with room for one of its pods now
  for (const NodeUse* u : candidates) {
    if (per_pod.value() > 0 && u->total.value() - u->used.value() >= per_pod.value()) ++roomy;
  }
  for (size_t i = 0; i < candidates.size() && i < 3; ++i) {
    const NodeUse& u = *candidates[i];
    if (u.total.value() - u.used.value() <= 0) break;  // a full node is no candidate
    nodes.push_back({{"node", u.node->meta.name},
                     {"freeGpus", Gpus(Quantity(u.total.value() - u.used.value()))},
                     {"gpus", Gpus(u.total)}});
  }

  Document queue = nullptr;
  std::vector<std::string> changes;
  // The queue as it is now (the next cycle's numbers would count its own binds).
  const scheduler::QueueReport* q = FindQueue(current, queue_name);
  if (status == "Bound" || status == "Pipelined") {
    changes.push_back("it fits now: the next cycle of the scheduler would " +
                      std::string(status == "Bound" ? "bind" : "pipeline") + " it" +
                      (pod != nullptr && !pod->node.empty() ? " to " + pod->node : "") +
                      "; if it stays pending, check that the scheduler its schedulerName names "
                      "is running");
  }
  if (q != nullptr) {
    const Quantity alloc = q->allocated[ShareResource::kGpu];
    const Quantity fair = q->fair_share[ShareResource::kGpu];
    const core::Bound& limit = q->limit[ShareResource::kGpu];
    queue = {{"name", q->name},
             {"deservedGpus", BoundDoc(ShareResource::kGpu, q->deserved[ShareResource::kGpu])},
             {"limitGpus", BoundDoc(ShareResource::kGpu, limit)},
             {"fairShareGpus", Gpus(fair)},
             {"allocatedGpus", Gpus(alloc)},
             {"requestedGpus", Gpus(q->requested[ShareResource::kGpu])}};
    const bool over_quota = std::any_of(reasons.begin(), reasons.end(), [](const std::string& r) {
      return r.starts_with("NonPreemptibleOverQuota");
    });
    if (status == "Pending" && over_quota) {
      const Quantity needed(q->allocated_non_preemptible[ShareResource::kGpu].value() +
                            per_pod.value() * std::max(waiting, 1));
      changes.push_back(
          "run it as a preemptible workload (a PriorityClass below 100, or "
          "preemptibility: preemptible on its PodGroup), which may use more than "
          "the queue deserves, or raise queue " +
          q->name + "'s deserved GPUs to at least " + Gpus(needed));
    }
    if (status == "Pending") {
      if (!limit.is_unlimited() && alloc.value() + per_pod.value() > limit.amount().value()) {
        changes.push_back("queue " + q->name + " holds " + Gpus(alloc) + " of its limit of " +
                          Gpus(limit.amount()) +
                          " GPUs: raise spec.resources.gpu.limit or wait for its pods to end");
      }
      if (alloc.value() > fair.value()) {
        changes.push_back("queue " + q->name + " is " +
                          Gpus(Quantity(alloc.value() - fair.value())) +
                          " GPUs over its fair share of " + Gpus(fair) +
                          ": its preemptible pods are reclaim candidates for other queues, and it "
                          "gets more only from capacity nobody else claims");
      } else if (alloc.value() < fair.value()) {
        changes.push_back(
            "queue " + q->name + " is " + Gpus(Quantity(fair.value() - alloc.value())) +
            " GPUs under its fair share of " + Gpus(fair) +
            ": reclaim can take GPUs back from preemptible pods of queues over theirs");
      }
    }
  }
  if (status == "Pending" && per_pod.value() > 0 && roomy >= std::max(waiting, 1)) {
    changes.push_back("placement is not what holds it: " + std::to_string(roomy) +
                      " node(s) have " + Gpus(per_pod) + " GPUs free now (" +
                      nodes[0]["node"].get<std::string>() + ": " +
                      nodes[0]["freeGpus"].get<std::string>() + ")");
  } else if (status == "Pending" && per_pod.value() > 0) {
    std::string where = pool.empty() ? "" : " in node pool " + pool;
    std::string need = waiting <= 1
                           ? Gpus(per_pod) + " GPUs free on one node" + where
                           : Gpus(per_pod) + " GPUs free on each of " + std::to_string(waiting) +
                                 " nodes" + where + " (or as many pods' worth on fewer)";
    std::string most = "no node" + where + " has a free GPU now";
    if (!nodes.empty()) {
      most = "the most free now: ";
      for (size_t i = 0; i < nodes.size(); ++i) {
        most += (i ? ", " : "") + nodes[i]["node"].get<std::string>() + " " +
                nodes[i]["freeGpus"].get<std::string>();
      }
    }
    changes.push_back("fits if " + need + "; " + most);
  }
  Document doc = {{"target", target},
                  {"kind", pod != nullptr ? "Pod" : "PodGroup"},
                  {"podGroup", group_key.empty() ? Document(nullptr) : Document(group_key)},
                  {"status", status},
                  {"reasons", reasons},
                  {"gpusPerPod", Gpus(per_pod)},
                  {"podsWaiting", waiting},
                  {"queue", queue},
                  {"closestNodes", nodes},
                  {"whatWouldChangeIt", changes}};
  return doc;
}

Document TopDocument(const scheduler::RunReport& report, const core::ClusterObjects& objects,
                     const std::string& node_pool_label) {
  std::map<std::string, NodeUse> use = UsePerNode(report, objects);
  std::vector<const NodeUse*> ordered;
  for (const auto& [name, u] : use) ordered.push_back(&u);
  std::sort(ordered.begin(), ordered.end(), [&](const NodeUse* a, const NodeUse* b) {
    return std::make_pair(LabelOf(a->node->meta, node_pool_label), a->node->meta.name) <
           std::make_pair(LabelOf(b->node->meta, node_pool_label), b->node->meta.name);
  });
  Document nodes = Document::array();
  for (const NodeUse* u : ordered) {
    Document by_queue = Document::object();
    for (const auto& [queue, gpus] : u->by_queue) by_queue[queue] = Gpus(gpus);
    Document shared = Document::array();
    for (const auto& [group, holders] : u->shared) {
      Document parts = Document::array();
      for (const auto& [queue, portion] : holders) {
        parts.push_back({{"queue", queue}, {"gpus", Gpus(portion)}});
      }
      shared.push_back({{"group", group}, {"holders", parts}});
    }
    const std::string trouble = NodeTrouble(*u->node);
    nodes.push_back(
        {{"name", u->node->meta.name},
         {"pool", LabelOf(u->node->meta, node_pool_label)},
         {"gpus", Gpus(u->total)},
         {"used", Gpus(u->used)},
         {"free", Gpus(Quantity(std::max<int64_t>(0, u->total.value() - u->used.value())))},
         {"unhealthyGpus", u->node->unhealthy_gpus.size()},
         {"status", trouble.empty() ? "ok" : trouble},
         {"byQueue", by_queue},
         {"shared", shared}});
  }
  std::map<std::string, std::pair<int, int>> pods;  // queue -> running, pending
  for (const auto& p : report.pods) {
    if (p.status == "Pending") ++pods[p.queue].second;
    if (p.status == "Running" || p.status == "Bound") ++pods[p.queue].first;
  }
  Document queues = Document::array();
  for (const QueueRow& row : QueueTree(report)) {
    const scheduler::QueueReport& q = *FindQueue(report, row.name);
    queues.push_back({{"name", q.name},
                      {"depth", row.depth},
                      {"allocatedGpus", Gpus(q.allocated[ShareResource::kGpu])},
                      {"fairShareGpus", Gpus(q.fair_share[ShareResource::kGpu])},
                      {"runningPods", pods[q.name].first},
                      {"pendingPods", pods[q.name].second}});
  }
  return {{"nodes", nodes}, {"queues", queues}};
}

Document WhatIfDocument(const scheduler::RunReport& before, const scheduler::RunReport& after) {
  // A decision the cycle would make anyway is not the proposal's doing: it is marked so.
  std::set<std::tuple<std::string, std::string, std::string>> anyway;
  if (!before.cycles.empty()) {
    for (const auto& d : before.cycles.front().decisions) {
      anyway.insert({d.pod, std::string(framework::DecisionKindName(d.kind)), d.node});
    }
  }
  Document decisions = Document::array();
  if (!after.cycles.empty()) {
    for (const auto& d : after.cycles.front().decisions) {
      const std::string kind(framework::DecisionKindName(d.kind));
      decisions.push_back({{"action", d.action},
                           {"kind", kind},
                           {"pod", d.pod},
                           {"node", d.node},
                           {"withoutTheChange", anyway.count({d.pod, kind, d.node}) > 0},
                           {"reason", d.reason}});
    }
  }
  Document queues = Document::array();
  for (const QueueRow& row : QueueTree(after)) {
    const scheduler::QueueReport& q = *FindQueue(after, row.name);
    const scheduler::QueueReport* was = FindQueue(before, row.name);
    queues.push_back(
        {{"name", q.name},
         {"depth", row.depth},
         {"fairShareGpusBefore", was == nullptr
                                     ? Document(nullptr)
                                     : Document(Gpus(was->fair_share[ShareResource::kGpu]))},
         {"fairShareGpusAfter", Gpus(q.fair_share[ShareResource::kGpu])},
         {"allocatedGpusBefore",
          was == nullptr ? Document(nullptr) : Document(Gpus(was->allocated[ShareResource::kGpu]))},
         {"allocatedGpusAfter", Gpus(q.allocated[ShareResource::kGpu])}});
  }
  Document pending = Document::array();
  for (const auto& p : after.pods) {
    if (p.status == "Pending") pending.push_back({{"pod", p.pod}, {"reason", p.reason}});
  }
  return {{"decisions", decisions}, {"queues", queues}, {"stillPending", pending}};
}

namespace {
template <typename T>
void OverlayKind(std::vector<T>& base, std::vector<T>& changes) {
  for (T& changed : changes) {
    auto same = std::find_if(base.begin(), base.end(),
                             [&](const T& b) { return Key(b.meta) == Key(changed.meta); });
    if (same != base.end()) {
      *same = std::move(changed);
    } else {
      base.push_back(std::move(changed));
    }
  }
}
}  // namespace

void Overlay(core::ClusterObjects& base, core::ClusterObjects changes) {
  OverlayKind(base.nodes, changes.nodes);
  OverlayKind(base.pods, changes.pods);
  OverlayKind(base.queues, changes.queues);
  OverlayKind(base.pod_groups, changes.pod_groups);
  OverlayKind(base.priority_classes, changes.priority_classes);
  OverlayKind(base.pod_disruption_budgets, changes.pod_disruption_budgets);
}

}  // namespace quotient::daytwo
