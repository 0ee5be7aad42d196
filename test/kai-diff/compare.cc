#include "compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include <fmt/format.h>

#include "case.h"

namespace quotient::kaidiff {
namespace {

using Pairs = std::set<std::pair<std::string, std::string>>;  // (pod, node)

std::string Describe(const Pairs& pairs, size_t limit = 4) {
  std::string out;
  size_t n = 0;
  for (const auto& [pod, node] : pairs) {
    if (n++ == limit) {
      out += fmt::format(" +{} more", pairs.size() - limit);
      break;
    }
    out += (out.empty() ? "" : " ") + pod + (node.empty() ? "" : "@" + node);
  }
  return out.empty() ? "-" : out;
}

Pairs Minus(const Pairs& a, const Pairs& b) {
  Pairs out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::inserter(out, out.end()));
  return out;
}

Pairs Select(const CycleOutcome& c, const std::string& action, const std::string& kind) {
  Pairs out;
  for (const Decision& d : c.decisions) {
    if (d.action == action && d.kind == kind) out.insert({d.pod, d.node});
  }
  return out;
}

std::string SharingText(const Sharing& s) {
  std::string out;
  for (const auto& group : s) {
    if (group.size() < 2) continue;
    std::string inner;
    for (const std::string& pod : group) inner += (inner.empty() ? "" : ",") + pod;
    out += (out.empty() ? "" : " ") + ("{" + inner + "}");
  }
  return out.empty() ? "no shared devices" : out;
}

// Only groups of two or more pods say who shares; a pod alone on its device is the same
// whichever device it is.
Sharing Shared(const Sharing& s) {
  Sharing out;
  for (const auto& group : s) {
    if (group.size() > 1) out.insert(group);
  }
  return out;
}

std::optional<Difference> CompareCycle(const CycleOutcome& q, const CycleOutcome& k, int cycle) {
  std::vector<std::string> actions = AllActions();
  for (const auto* c : {&q, &k}) {
    for (const Decision& d : c->decisions) {
      if (std::find(actions.begin(), actions.end(), d.action) == actions.end()) {
        actions.push_back(d.action);
      }
    }
  }
  static const std::vector<std::pair<std::string, std::string>> kKinds = {
      {"evict", "eviction-set"}, {"pipeline", "pipeline-set"}, {"bind", "bind-set"}};
  for (const std::string& action : actions) {
    for (const auto& [kind, cls] : kKinds) {
      const Pairs a = Select(q, action, kind), b = Select(k, action, kind);
      if (a == b) continue;
      return Difference{cls, action, cycle,
                        fmt::format("cycle {} {} {}: quotient only {}; KAI only {}", cycle, action,
                                    kind, Describe(Minus(a, b)), Describe(Minus(b, a)))};
    }
  }
  if (Shared(q.sharing) != Shared(k.sharing)) {
    return Difference{"gpu-sharing", "", cycle,
                      fmt::format("cycle {}: quotient {}; KAI {}", cycle, SharingText(q.sharing),
                                  SharingText(k.sharing))};
  }
  return std::nullopt;
}

std::string AmountText(const std::optional<double>& v) {
  return v ? fmt::format("{}", *v) : "null";
}

std::optional<Difference> CompareAmounts(
    const Outcome& q, const Outcome& k, const char* cls,
    const std::function<const Amounts&(const QueueOutcome&)>& get, std::optional<size_t> only) {
  for (const auto& [name, qq] : q.queues) {
    const QueueOutcome& kq = k.queues.at(name);
    for (size_t r = 0; r < kResourceNames.size(); ++r) {
      if (only && r != *only) continue;
      if (AmountsAgree(get(qq)[r], get(kq)[r], r)) continue;
      return Difference{cls, "", -1,
                        fmt::format("queue {} {}: quotient {}, KAI {}", name, kResourceNames[r],
                                    AmountText(get(qq)[r]), AmountText(get(kq)[r]))};
    }
  }
  return std::nullopt;
}

std::optional<Difference> CompareQueueSets(const Outcome& q, const Outcome& k) {
  for (const auto* pair : {&q, &k}) {
    const Outcome& other = pair == &q ? k : q;
    for (const auto& [name, unused] : pair->queues) {
      if (other.queues.count(name) == 0) {
        return Difference{
            "queue-set", "", -1,
            fmt::format("queue {} only in {}'s report", name, pair == &q ? "quotient" : "KAI")};
      }
    }
  }
  return std::nullopt;
}

// The node of a pod counts only where the pod holds it (or will, pipelined): a Pending, Gated,
// Succeeded or Failed pod's node says nothing about a decision.
bool HoldsNode(const std::string& status) {
  return status == "Running" || status == "Bound" || status == "Pipelined" || status == "Releasing";
}

std::optional<Difference> ComparePods(const Outcome& q, const Outcome& k) {
  for (const auto* side : {&q, &k}) {
    const Outcome& other = side == &q ? k : q;
    for (const auto& [name, unused] : side->pods) {
      if (other.pods.count(name) == 0) {
        return Difference{
            "pod-set", "", -1,
            fmt::format("pod {} only in {}'s report", name, side == &q ? "quotient" : "KAI")};
      }
    }
  }
  for (const auto& [name, qp] : q.pods) {
    const PodOutcome& kp = k.pods.at(name);
    if (qp.status != kp.status || (HoldsNode(qp.status) && qp.node != kp.node)) {
      return Difference{"pod-status", "", -1,
                        fmt::format("pod {}: quotient {}{}, KAI {}{}", name, qp.status,
                                    qp.node.empty() ? "" : " on " + qp.node, kp.status,
                                    kp.node.empty() ? "" : " on " + kp.node)};
    }
  }
  for (const auto& [name, status] : q.pod_groups) {
    auto it = k.pod_groups.find(name);
    const std::string other = it == k.pod_groups.end() ? "(absent)" : it->second;
    if (status != other) {
      return Difference{"pod-group-status", "", -1,
                        fmt::format("pod group {}: quotient {}, KAI {}", name, status, other)};
    }
  }
  for (const auto& [name, status] : k.pod_groups) {
    if (q.pod_groups.count(name) == 0) {
      return Difference{"pod-group-status", "", -1,
                        fmt::format("pod group {}: quotient (absent), KAI {}", name, status)};
    }
  }
  return std::nullopt;
}

}  // namespace

const std::vector<std::string>& DifferenceClasses() {
  static const std::vector<std::string> kClasses = {
      "cycle-count", "queue-set",      "eviction-set",   "pipeline-set",      "bind-set",
      "gpu-sharing", "fair-share-gpu", "fair-share-cpu", "fair-share-memory", "requested",
      "allocated",   "pod-set",        "pod-status",     "pod-group-status",  "quotient-error"};
  return kClasses;
}

bool AmountsAgree(const std::optional<double>& a, const std::optional<double>& b, size_t resource) {
  if (!a || !b) return !a && !b;
  const double diff = std::fabs(*a - *b);
  if (diff <= 0.01 * std::max(std::fabs(*a), std::fabs(*b))) return true;
  return resource == 0 && diff <= 0.01 + 1e-12;
}

std::optional<Difference> Compare(const Outcome& q, const Outcome& k) {
  if (q.cycles.size() != k.cycles.size()) {
    return Difference{"cycle-count", "", -1,
                      fmt::format("quotient {} cycles, KAI {}", q.cycles.size(), k.cycles.size())};
  }
  if (auto d = CompareQueueSets(q, k)) return d;
  const int last = static_cast<int>(q.cycles.size()) - 1;
  for (int c = 0; c < last; ++c) {
    if (auto d =
            CompareCycle(q.cycles[static_cast<size_t>(c)], k.cycles[static_cast<size_t>(c)], c)) {
      return d;
    }
  }
  auto requested = [](const QueueOutcome& o) -> const Amounts& { return o.requested; };
  auto fair = [](const QueueOutcome& o) -> const Amounts& { return o.fair_share; };
  auto allocated = [](const QueueOutcome& o) -> const Amounts& { return o.allocated; };
  if (auto d = CompareAmounts(q, k, "fair-share-gpu", fair, 0)) return d;
  if (auto d = CompareAmounts(q, k, "fair-share-cpu", fair, 1)) return d;
  if (auto d = CompareAmounts(q, k, "fair-share-memory", fair, 2)) return d;
  if (last >= 0) {
    if (auto d = CompareCycle(q.cycles[static_cast<size_t>(last)],
                              k.cycles[static_cast<size_t>(last)], last)) {
      return d;
    }
  }
  if (Shared(q.final_sharing) != Shared(k.final_sharing)) {
    return Difference{"gpu-sharing", "", -1,
                      fmt::format("after the last cycle: quotient {}; KAI {}",
                                  SharingText(q.final_sharing), SharingText(k.final_sharing))};
  }
  if (auto d = CompareAmounts(q, k, "requested", requested, std::nullopt)) return d;
  if (auto d = CompareAmounts(q, k, "allocated", allocated, std::nullopt)) return d;
  return ComparePods(q, k);
}

std::string ClassSignature(const Outcome& o) {
  std::string out;
  for (size_t c = 0; c < o.cycles.size(); ++c) {
    std::map<std::string, std::array<int, 3>> per_queue;
    for (const Decision& d : o.cycles[c].decisions) {
      auto pod = o.pods.find(d.pod);
      const std::string queue = pod == o.pods.end() ? "?" : pod->second.queue;
      const size_t kind = d.kind == "bind" ? 0 : d.kind == "evict" ? 1 : 2;
      ++per_queue[queue][kind];
    }
    out += fmt::format("c{}:", c);
    for (const auto& [queue, n] : per_queue) {
      out += fmt::format(" {}={}/{}/{}", queue, n[0], n[1], n[2]);
    }
    out += "\n";
  }
  for (const auto& [group, status] : o.pod_groups) out += group + "=" + status + "\n";
  return out;
}

Verdict Judge(const Outcome& q, const std::vector<Outcome>& kai) {
  Verdict v;
  for (size_t i = 0; i < kai.size(); ++i) {
    if (!Compare(q, kai[i])) {
      v.matched_run = static_cast<int>(i);
      break;
    }
  }
  // Distinct KAI outcomes: each run against the earlier distinct ones.
  std::vector<size_t> distinct;
  for (size_t i = 0; i < kai.size(); ++i) {
    bool seen = false;
    for (size_t j : distinct) seen = seen || !Compare(kai[i], kai[j]);
    if (!seen) distinct.push_back(i);
  }
  v.kai_variants = static_cast<int>(distinct.size());
  if (v.matched_run >= 0) return v;
  if (distinct.size() > 1) {
    const std::string mine = ClassSignature(q);
    for (const Outcome& k : kai) {
      if (ClassSignature(k) == mine) {
        v.result = Result::kTieClass;
        v.first = *Compare(q, kai.front());
        return v;
      }
    }
  }
  v.result = Result::kDiverge;
  v.first = *Compare(q, kai.front());
  return v;
}

}  // namespace quotient::kaidiff
