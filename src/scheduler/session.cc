#include "scheduler/session.h"

#include "core/quantity.h"

namespace quotient::scheduler {

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
      shares_(fairshare::ComputeFairShare(snapshot, FairShareOptionsFrom(config))) {}

void Session::AddJobReason(core::Index job, std::string reason) {
  job_reasons_[job].push_back(std::move(reason));
}

const std::vector<std::string>& Session::JobReasons(core::Index job) const {
  static const std::vector<std::string> kNone;
  auto it = job_reasons_.find(job);
  return it == job_reasons_.end() ? kNone : it->second;
}

}  // namespace quotient::scheduler
