#include "known_differences.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <stdexcept>

namespace quotient::kaidiff {
namespace {

std::vector<std::string> Strings(const YAML::Node& node, const std::string& where) {
  std::vector<std::string> out;
  if (!node) return out;
  if (!node.IsSequence()) throw std::runtime_error(where + ": expected a list of strings");
  for (const YAML::Node& item : node) out.push_back(item.as<std::string>());
  return out;
}

bool AnyOrContains(const std::vector<std::string>& allowed, const std::string& value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

// docs/kai-differences.md, "Pods placed earlier in the same cycle are never victims": the first
// difference is an eviction set in which KAI evicted, and Quotient did not, a pod that an earlier
// action of the same cycle had bound or pipelined (in KAI's report), or that the same action had
// pipelined before (KAI's eviction names no node: the pod had none when the cycle opened, and the
// action also pipelines it).
// The same difference seen in the action that placed the pod: the oracle reports the pipelines a
// cycle leaves in place (test/kai-oracle/cycle.go, keepLivePipelines), so a pod KAI pipelined and
// a later action of the cycle evicted (its eviction names no node) is missing from the pipeline
// set of the action that placed it. The first difference is then that pipeline set, in which
// Quotient pipelined every pod KAI did, and every pod only Quotient pipelined is such a pod.
bool LostAPipelineToAnEvictionThisCycle(const Case& c, const Difference& d,
                                        const Reports& reports) {
  const auto cycle = static_cast<size_t>(d.cycle);
  if (d.cycle < 0 || cycle >= reports.kai->cycles.size() ||
      cycle >= reports.quotient->cycles.size()) {
    return false;
  }
  const std::vector<std::string>& actions = c.run.actions;
  const auto position = std::find(actions.begin(), actions.end(), d.action);
  if (position == actions.end()) return false;
  const std::set<std::string> later(std::next(position), actions.end());
  const auto pipelined = [&](const Outcome& o) {
    std::set<std::string> pods;
    for (const Decision& x : o.cycles[cycle].decisions) {
      if (x.kind == "pipeline" && x.action == d.action) pods.insert(x.pod);
    }
    return pods;
  };
  const std::set<std::string> theirs = pipelined(*reports.kai);
  const std::set<std::string> ours = pipelined(*reports.quotient);
  std::set<std::string> evicted_later;
  for (const Decision& x : reports.kai->cycles[cycle].decisions) {
    if (x.kind == "evict" && x.node.empty() && later.count(x.action)) evicted_later.insert(x.pod);
  }
  bool extra = false;
  for (const std::string& pod : theirs) {
    if (!ours.count(pod)) return false;
  }
  for (const std::string& pod : ours) {
    if (theirs.count(pod)) continue;
    if (!evicted_later.count(pod)) return false;
    extra = true;
  }
  return extra;
}

bool EvictsAPodPlacedThisCycle(const Case& c, const Difference& d, const Reports& reports) {
  if (reports.kai == nullptr || reports.quotient == nullptr) return false;
  if (d.cls == "pipeline-set") return LostAPipelineToAnEvictionThisCycle(c, d, reports);
  if (d.cls != "eviction-set") return false;
  const auto cycle = static_cast<size_t>(d.cycle);
  if (d.cycle < 0 || cycle >= reports.kai->cycles.size()) return false;
  const std::vector<std::string>& actions = c.run.actions;
  const auto position = std::find(actions.begin(), actions.end(), d.action);
  if (position == actions.end()) return false;
  const std::set<std::string> earlier(actions.begin(), position);
  std::set<std::string> placed;
  std::set<std::string> pipelined_here;
  for (const Decision& x : reports.kai->cycles[cycle].decisions) {
    if (x.kind != "evict" && earlier.count(x.action)) placed.insert(x.pod);
    if (x.kind == "pipeline" && x.action == d.action) pipelined_here.insert(x.pod);
  }
  for (const Decision& x : reports.kai->cycles[cycle].decisions) {
    if (x.kind == "evict" && x.action == d.action && x.node.empty() && pipelined_here.count(x.pod))
      placed.insert(x.pod);
  }
  std::set<std::string> ours;
  if (cycle < reports.quotient->cycles.size()) {
    for (const Decision& x : reports.quotient->cycles[cycle].decisions) {
      if (x.kind == "evict" && x.action == d.action) ours.insert(x.pod);
    }
  }
  for (const Decision& x : reports.kai->cycles[cycle].decisions) {
    if (x.kind == "evict" && x.action == d.action && placed.count(x.pod) && !ours.count(x.pod)) {
      return true;
    }
  }
  return false;
}

// docs/kai-differences.md, "A preemptor that fits moves no victim": the first difference is an
// eviction set of reclaim, preempt or consolidation in which every pod KAI evicted and Quotient did
// not was running (KAI's eviction names its node) and was pipelined again by KAI in the same action
// (a move), Quotient evicted nothing KAI did not, and every other pod KAI pipelined in the action
// Quotient pipelined too: the same preemptors were placed, without the moves.
bool MovesAVictimForNothing(const Case&, const Difference& d, const Reports& reports) {
  if (d.cls != "eviction-set" ||
      (d.action != "reclaim" && d.action != "preempt" && d.action != "consolidation") ||
      reports.kai == nullptr || reports.quotient == nullptr || d.cycle < 0) {
    return false;
  }
  const auto cycle = static_cast<size_t>(d.cycle);
  if (cycle >= reports.kai->cycles.size() || cycle >= reports.quotient->cycles.size()) {
    return false;
  }
  const auto of = [&](const Outcome& o, const std::string& kind) {
    std::map<std::string, std::string> pods;  // pod -> node
    for (const Decision& x : o.cycles[cycle].decisions) {
      if (x.kind == kind && x.action == d.action) pods[x.pod] = x.node;
    }
    return pods;
  };
  const auto kai_evicted = of(*reports.kai, "evict");
  const auto kai_pipelined = of(*reports.kai, "pipeline");
  const auto our_evicted = of(*reports.quotient, "evict");
  const auto our_pipelined = of(*reports.quotient, "pipeline");
  std::set<std::string> moved;
  for (const auto& [pod, node] : our_evicted) {
    if (!kai_evicted.count(pod)) return false;
  }
  for (const auto& [pod, node] : kai_evicted) {
    if (our_evicted.count(pod)) continue;
    if (node.empty() || !kai_pipelined.count(pod)) return false;
    moved.insert(pod);
  }
  if (moved.empty()) return false;
  for (const auto& [pod, node] : kai_pipelined) {
    if (!moved.count(pod) && !our_pipelined.count(pod)) return false;
  }
  return true;
}

}  // namespace

const std::map<std::string, KnownPredicate>& CodePredicates() {
  // id -> predicate, for differences that classes and tags cannot pick out.
  static const std::map<std::string, KnownPredicate> kPredicates = {
      {"placed-this-cycle-no-victim", EvictsAPodPlacedThisCycle},
      {"victim-moved-for-nothing", MovesAVictimForNothing},
  };
  return kPredicates;
}

KnownDifferences::KnownDifferences(std::vector<KnownDifference> entries,
                                   std::map<std::string, KnownPredicate> predicates)
    : entries_(std::move(entries)), predicates_(std::move(predicates)) {}

KnownDifferences KnownDifferences::Load(const std::filesystem::path& path) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path.string());
  } catch (const YAML::Exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
  const YAML::Node list = root["differences"];
  if (!list || !list.IsSequence()) {
    throw std::runtime_error(path.string() + ": expected a list under `differences`");
  }
  std::vector<KnownDifference> entries;
  const auto& predicates = CodePredicates();
  const auto& classes = DifferenceClasses();
  for (const YAML::Node& item : list) {
    KnownDifference k;
    k.id = item["id"] ? item["id"].as<std::string>() : "";
    const std::string where = path.string() + ": entry " + (k.id.empty() ? "?" : k.id);
    if (k.id.empty()) throw std::runtime_error(where + ": missing id");
    k.description = item["description"] ? item["description"].as<std::string>() : "";
    k.section = item["section"] ? item["section"].as<std::string>() : "";
    if (k.description.empty() || k.section.empty()) {
      throw std::runtime_error(where + ": needs a description and a section");
    }
    if (const YAML::Node match = item["match"]) {
      k.has_match = true;
      k.classes = Strings(match["classes"], where + ".match.classes");
      k.actions = Strings(match["actions"], where + ".match.actions");
      k.tags = Strings(match["tags"], where + ".match.tags");
      for (const std::string& c : k.classes) {
        if (std::find(classes.begin(), classes.end(), c) == classes.end()) {
          throw std::runtime_error(where + ": unknown class " + c);
        }
      }
    }
    k.exclude_features = Strings(item["exclude-features"], where + ".exclude-features");
    k.rerun_with = Strings(item["rerun-with"], where + ".rerun-with");
    if (!k.has_match && k.exclude_features.empty() && k.rerun_with.empty() &&
        predicates.count(k.id) == 0) {
      throw std::runtime_error(where +
                               ": no match, no exclude-features, no rerun-with and no predicate "
                               "in code");
    }
    entries.push_back(std::move(k));
  }
  return KnownDifferences(std::move(entries), predicates);
}

std::optional<std::string> KnownDifferences::Recognise(const Case& c, const Difference& d,
                                                       const Reports& reports) const {
  for (const KnownDifference& k : entries_) {
    auto predicate = predicates_.find(k.id);
    if (predicate != predicates_.end() && predicate->second(c, d, reports)) return k.id;
    if (!k.has_match) continue;
    if (!AnyOrContains(k.classes, d.cls) || !AnyOrContains(k.actions, d.action)) continue;
    if (std::all_of(k.tags.begin(), k.tags.end(),
                    [&](const std::string& t) { return c.HasTag(t); })) {
      return k.id;
    }
  }
  return std::nullopt;
}

std::vector<const KnownDifference*> KnownDifferences::Reruns() const {
  std::vector<const KnownDifference*> out;
  for (const KnownDifference& k : entries_) {
    if (!k.rerun_with.empty()) out.push_back(&k);
  }
  return out;
}

std::set<std::string> KnownDifferences::ExcludedFeatures() const {
  std::set<std::string> out;
  for (const KnownDifference& k : entries_) {
    out.insert(k.exclude_features.begin(), k.exclude_features.end());
  }
  return out;
}

}  // namespace quotient::kaidiff
