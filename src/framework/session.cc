#include "framework/session.h"

#include <algorithm>

#include "core/quantity.h"
#include "core/snapshot_builder.h"
#include "core/time_text.h"

namespace quotient::framework {

std::string_view DecisionKindName(DecisionKind kind) {
  switch (kind) {
    case DecisionKind::kBind:
      return "bind";
    case DecisionKind::kEvict:
      return "evict";
    case DecisionKind::kPipeline:
      return "pipeline";
  }
  return "unknown";
}

fairshare::FairShareOptions FairShareOptionsFrom(const SchedulerConfig& config) {
  fairshare::FairShareOptions options;
  if (const PluginOption* proportion = config.FindPlugin("proportion")) {
    auto it = proportion->arguments.find("kValue");
    if (it != proportion->arguments.end()) {
      Result<core::Quantity> k =
          core::ParseQuantity(it->second, core::Scale::kMilli, core::Rounding::kDown);
      // KAI: a kValue that does not parse keeps the default; below zero counts as zero.
      if (k.ok()) options.k_value_milli = k->value() < 0 ? 0 : k->value();
    }
  }
  return options;
}

Session::Session(const core::Snapshot& snapshot, const SchedulerConfig& config)
    : snapshot_(snapshot),
      config_(config),
      shares_(fairshare::ComputeFairShare(snapshot, FairShareOptionsFrom(config))),
      state_(snapshot, config.stuck_in_releasing_threshold) {
  for (size_t i = 0; i < snapshot.pods.size(); ++i) {
    if (!snapshot.pods[i].affinity.required_pod_anti_affinity.empty()) {
      pods_with_anti_affinity_.push_back(static_cast<Index>(i));
    }
  }
  for (const core::DisruptionBudget& b : snapshot.budgets) {
    disruptions_left_.push_back(b.disruptions_allowed);
  }
}

bool Session::WithinDisruptionBudgets(const std::vector<Index>& pods,
                                      const std::map<Index, int32_t>& already) const {
  std::map<Index, int32_t> wanted;
  for (Index p : pods) {
    const std::vector<Index>& budgets = pod(p).budgets;
    if (budgets.size() > 1) return false;
    if (budgets.size() == 1) ++wanted[budgets.front()];
  }
  for (const auto& [budget, count] : wanted) {
    auto it = already.find(budget);
    const int32_t taken = it == already.end() ? 0 : it->second;
    if (taken + count > disruptions_left_[static_cast<size_t>(budget)]) return false;
  }
  return true;
}

void Session::SpendDisruptions(const std::vector<Index>& pods) {
  for (Index p : pods) {
    for (Index b : pod(p).budgets) --disruptions_left_[static_cast<size_t>(b)];
  }
}

core::ShareVector Session::QuotaOf(Index pod_index, Index node_index) const {
  const core::Node* n = node_index == kNone ? nullptr : &node(node_index);
  return core::QuotaOf(pod(pod_index), n, snapshot_);
}

void Session::Record(Decision decision) {
  decisions_.push_back(std::move(decision));
  const Decision& d = decisions_.back();
  const Index pod_index = snapshot_.FindPod(d.pod);
  const Index job_index = pod_index == kNone ? kNone : pod(pod_index).job;
  // KAI stamps the evicted job's PodGroup with the time (statement.go, Evict): its preemption
  // delay starts again from there. Implicit groups have no object to stamp.
  if (d.kind == DecisionKind::kEvict && job_index != kNone && !job(job_index).implicit) {
    const std::string key(core::kLastEvictionAnnotation);
    const std::string& group = job(job_index).key;
    const bool said = std::any_of(annotations_.begin(), annotations_.end(), [&](const auto& a) {
      return a.pod_group == group && a.key == key;
    });
    if (!said) RecordAnnotation({group, key, core::FormatRfc3339(snapshot_.now)});
  }
  if (!listener_) return;
  listener_(d, job_index == kNone ? std::string() : job(job_index).key);
}

void Session::AddJobReason(core::Index job, std::string reason) {
  job_reasons_[job].push_back(std::move(reason));
}

const std::vector<std::string>& Session::JobReasons(core::Index job) const {
  static const std::vector<std::string> kNoReasons;
  auto it = job_reasons_.find(job);
  return it == job_reasons_.end() ? kNoReasons : it->second;
}

}  // namespace quotient::framework
