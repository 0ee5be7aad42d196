// Phase 2 of Decide: which confirmed Suspect nodes may be cordoned now. In order: the circuit
// breaker (a fleet-wide cause needs a person, not a drain), the recurrence budget (escalate),
// the flap backoff, then the concurrency caps per failure domain, pool and fleet. Waiting nodes
// are served by when their incident opened, then by name.
#include <algorithm>
#include <map>
#include <tuple>

#include "core/time_text.h"
#include "remediation/machine.h"

namespace quotient::remediation {
namespace {

// Remediations in flight, per pool, per failure domain and in all.
struct Occupancy {
  std::map<std::string, int> pool;
  std::map<std::string, int> domain;
  int global = 0;

  void Add(const NodeView& node) {
    ++pool[node.pool];
    ++domain[node.domain];
    ++global;
  }
  // Why `node` may not take a slot, with the rail's code; empty when it may.
  std::pair<std::string, std::string> Full(const NodeView& node, const Rails& rails) {
    const auto over = [](int used, int cap) { return cap > 0 && used >= cap; };
    const auto text = [](std::string_view what, const std::string& name, int used, int cap) {
      return std::string(what) + " \"" + name + "\" has " + std::to_string(used) + " of " +
             std::to_string(cap) + " remediations running";
    };
    if (over(domain[node.domain], rails.max_per_domain)) {
      return {"domain-cap",
              text("failure domain", node.domain, domain[node.domain], rails.max_per_domain)};
    }
    if (over(pool[node.pool], rails.max_per_pool)) {
      return {"pool-cap", text("pool", node.pool, pool[node.pool], rails.max_per_pool)};
    }
    if (over(global, rails.max_global)) {
      return {"global-cap", text("the fleet", "all", global, rails.max_global)};
    }
    return {};
  }
};

// Why the circuit breaker holds a node back, "" when it does not: its pool had too many
// incidents within the window, or too many nodes of the fleet report the same reason.
struct Breaker {
  std::map<std::string, std::string> pool;
  std::string fleet;

  const std::string& For(const NodeView& node) const {
    if (!fleet.empty()) return fleet;
    static const std::string kClosed;
    const auto it = pool.find(node.pool);
    return it == pool.end() ? kClosed : it->second;
  }
};

// The breaker, from the incidents opened within the window. It closes by itself once those
// incidents age out of the window (Decide asks to come back then), or when a person sets
// breaker_reset_at.
Breaker ComputeBreaker(const std::vector<const NodeView*>& nodes,
                       const std::vector<NodeOutcome>& outcomes, Context& ctx) {
  const Rails& rails = ctx.config.rails;
  std::map<std::string, int> pool_size;
  std::map<std::string, std::vector<Time>> pool_recent;
  std::map<std::string, std::vector<Time>> same_reason;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView& node = *nodes[i];
    const NodeRecord& r = outcomes[i].record;
    ++pool_size[node.pool];
    if (r.state == State::kHealthy || r.state == State::kCancelled) continue;
    if (r.incident_opened + rails.breaker_window <= ctx.now) continue;
    if (rails.breaker_reset_at && r.incident_opened < *rails.breaker_reset_at) continue;
    pool_recent[node.pool].push_back(r.incident_opened);
    same_reason[r.fault_reason.empty() ? r.fault_class : r.fault_class + "/" + r.fault_reason]
        .push_back(r.incident_opened);
  }
  // When the oldest of `opened` leaves the window the count drops: worth a look then.
  const auto due = [&](const std::vector<Time>& opened) {
    ctx.Due(*std::min_element(opened.begin(), opened.end()) + rails.breaker_window);
  };
  const std::string window = FormatDuration(rails.breaker_window);
  Breaker breaker;
  for (const auto& [pool, opened] : pool_recent) {
    const int recent = static_cast<int>(opened.size());
    const int size = pool_size[pool];
    if (rails.breaker_percent > 0 && recent >= rails.breaker_min_nodes &&
        recent * 100 > rails.breaker_percent * size) {
      due(opened);
      breaker.pool[pool] = "circuit breaker open: " + std::to_string(recent) + " of " +
                           std::to_string(size) + " nodes of pool \"" + pool +
                           "\" opened an incident within " + window + " (more than " +
                           std::to_string(rails.breaker_percent) + "%)";
    }
  }
  for (const auto& [reason, opened] : same_reason) {
    const int count = static_cast<int>(opened.size());
    if (rails.breaker_same_reason > 0 && count >= rails.breaker_same_reason) {
      due(opened);
      breaker.fleet = "circuit breaker open: " + std::to_string(count) + " nodes report " + reason +
                      " within " + window + " (a fleet-wide cause needs a person)";
      break;
    }
  }
  return breaker;
}

}  // namespace

void AdmitCandidates(const std::vector<const NodeView*>& nodes, std::vector<NodeOutcome>& outcomes,
                     Context& ctx) {
  const Rails& rails = ctx.config.rails;
  Occupancy used;
  std::vector<size_t> candidates;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeView& node = *nodes[i];
    // A Suspect record on a node we tainted: a plan cut after its Cordon. It holds its slot.
    const bool cut_cordon = node.record.state == State::kSuspect && node.has_unhealthy_taint;
    if (HoldsSlot(outcomes[i].record.state) || (cut_cordon && outcomes[i].confirmed)) {
      used.Add(node);
    }
    if (outcomes[i].confirmed) candidates.push_back(i);
  }
  std::sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
    return std::tie(outcomes[a].record.incident_opened, nodes[a]->name) <
           std::tie(outcomes[b].record.incident_opened, nodes[b]->name);
  });
  const Breaker breaker = ComputeBreaker(nodes, outcomes, ctx);
  for (size_t i : candidates) {
    const NodeView& node = *nodes[i];
    NodeOutcome& out = outcomes[i];
    const ActiveFault fault = *out.confirmed;
    if (node.record.state == State::kSuspect && node.has_unhealthy_taint) {
      CordonNode(node, fault, ctx, out);  // finish the cut cordon; its slot is counted
      continue;
    }
    if (const std::string& open = breaker.For(node); !open.empty()) {
      Wait(node, "breaker", open, out);
      continue;
    }
    const auto recent =
        std::count_if(out.record.incidents.begin(), out.record.incidents.end(),
                      [&](Time t) { return t + rails.recurrence_window > ctx.now; });
    const int incident_number = static_cast<int>(recent) + 1;
    if (rails.recurrence_budget > 0 && incident_number >= rails.recurrence_budget) {
      EscalateRecurrence(node, fault, incident_number, ctx, out);
      continue;
    }
    if (ctx.now < out.record.backoff_until) {
      Wait(node, "backoff", "flap backoff until " + core::FormatRfc3339(out.record.backoff_until),
           out);
      ctx.Due(out.record.backoff_until);
      continue;
    }
    const auto [rail, why] = used.Full(node, rails);
    if (!rail.empty()) {
      Wait(node, rail, why, out);
      continue;
    }
    used.Add(node);
    CordonNode(node, fault, ctx, out);
  }
}

}  // namespace quotient::remediation
