#include "remediation/fleet_builder.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace quotient::remediation::testing {

Time At(Duration offset) {
  return Time(std::chrono::sys_days(std::chrono::year(2025) / 1 / 1)) + offset;
}

NodeView MakeNode(const std::string& name, const std::string& pool, const std::string& domain) {
  NodeView node;
  node.name = name;
  node.pool = pool;
  node.domain = domain;
  return node;
}

FaultCondition Fault(const std::string& type, const std::string& reason, Time since,
                     ConditionStatus status) {
  return {type, status, reason, "[gpu=GPU-1 code=79] " + reason, since};
}

PodView MakePod(const std::string& key) {
  PodView pod;
  pod.key = key;
  pod.uid = "uid-" + key;
  return pod;
}

PodView DaemonSetPod(const std::string& key) {
  PodView pod = MakePod(key);
  pod.daemonset = true;
  return pod;
}

PodView GangPod(const std::string& key, const std::string& gang) {
  PodView pod = MakePod(key);
  pod.gang = gang;
  return pod;
}

std::vector<NodeView> HealthyNodes(const std::string& prefix, int count, const std::string& pool) {
  std::vector<NodeView> nodes;
  for (int i = 0; i < count; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "%s-%02d", prefix.c_str(), i);
    nodes.push_back(MakeNode(name, pool, std::string("rack-") + name));
  }
  return nodes;
}

NodeView& FakeCluster::Node(const std::string& name) {
  for (NodeView& n : fleet.nodes) {
    if (n.name == name) return n;
  }
  throw std::out_of_range("no node " + name);
}

void FakeCluster::IndexGang(const std::string& gang) {
  std::vector<GangMember>& members = fleet.gangs[gang];
  members.clear();
  for (const NodeView& n : fleet.nodes) {
    for (const PodView& p : n.pods) {
      if (p.gang == gang) members.push_back({p.key, p.uid, n.name, p.terminating});
    }
  }
}

void FakeCluster::RemovePod(const std::string& key) {
  for (NodeView& n : fleet.nodes) {
    std::erase_if(n.pods, [&](const PodView& p) { return p.key == key; });
  }
  for (auto& [gang, members] : fleet.gangs) {
    std::erase_if(members, [&](const GangMember& m) { return m.key == key; });
  }
}

Plan FakeCluster::Reconcile(Time now) {
  Plan plan = Decide(fleet, config, now);
  Apply(plan);
  return plan;
}

void FakeCluster::Apply(const Plan& plan) {
  for (const Action& action : plan.actions) {
    if (const auto* a = std::get_if<SetRecord>(&action)) {
      Node(a->node).record = a->record;
    } else if (const auto* c = std::get_if<Cordon>(&action)) {
      Node(c->node).unschedulable = true;
      Node(c->node).has_unhealthy_taint = true;
    } else if (const auto* e = std::get_if<Evict>(&action)) {
      bool blocked = false;
      for (const NodeView& n : fleet.nodes) {
        for (const PodView& p : n.pods) blocked = blocked || (p.key == e->pod && p.pdb_blocked);
      }
      if (!blocked) {  // the API server answers 429 and the pod stays
        evicted.push_back(e->pod);
        RemovePod(e->pod);
      }
    } else if (const auto* f = std::get_if<ForceDelete>(&action)) {
      RemovePod(f->pod);
    } else if (const auto* s = std::get_if<StartStep>(&action)) {
      Node(s->node).step = StepObservation{s->step, s->attempt, StepStatus::kPending, ""};
    } else if (const auto* v = std::get_if<StartValidation>(&action)) {
      Node(v->node).step =
          StepObservation{std::string(kValidationStep), v->attempt, StepStatus::kPending, ""};
    } else if (const auto* u = std::get_if<Uncordon>(&action)) {
      NodeView& n = Node(u->node);
      n.unschedulable = n.has_unhealthy_taint = n.has_repair_taint = false;
    } else if (const auto* r = std::get_if<RemoveTaints>(&action)) {
      Node(r->node).has_unhealthy_taint = Node(r->node).has_repair_taint = false;
    } else if (const auto* x = std::get_if<Escalate>(&action)) {
      Node(x->node).has_repair_taint = true;
    }
  }
}

void FakeCluster::FinishStep(const std::string& node, StepStatus status,
                             const std::string& message) {
  NodeView& n = Node(node);
  if (!n.step) throw std::logic_error("no step in flight on " + node);
  n.step->status = status;
  n.step->message = message;
}

void FakeCluster::ClearFault(const std::string& node, const std::string& type, Time when) {
  for (FaultCondition& c : Node(node).conditions) {
    if (c.type == type) {
      c.status = ConditionStatus::kFalse;
      c.last_transition = when;
    }
  }
}

Plan RunToHealthy(FakeCluster& cluster, const std::string& node, Time& now) {
  for (int i = 0; i < 50; ++i) {
    if (i > 0) now += std::chrono::minutes(1);
    NodeView& n = cluster.Node(node);
    if (n.record.hold_down_since) {
      now = std::max(now, *n.record.hold_down_since + cluster.config.hold_down);
    }
    if (n.step && n.step->status == StepStatus::kPending) {
      for (const FaultCondition& c : n.conditions) cluster.ClearFault(node, c.type, now);
      cluster.FinishStep(node, StepStatus::kSucceeded);
    }
    Plan plan = cluster.Reconcile(now);
    if (cluster.Node(node).record.state == State::kHealthy) return plan;
  }
  throw std::logic_error(node + " did not come back");
}

std::vector<std::string> Lines(const Plan& plan) {
  std::vector<std::string> lines;
  for (const Action& a : plan.actions) lines.push_back(Describe(a));
  return lines;
}

}  // namespace quotient::remediation::testing
