// The consolidation action (KAI's consolidation, kai-reference §2.3): a pending preemptible job
// whose GPUs the cluster's free and releasing GPUs could hold (a job without GPUs always
// qualifies: moving pods can make room for its CPU and memory) moves other preemptible pods to
// make room — only if every moved pod is placed again (pure defragmentation), with at most
// `maxConsolidationPreemptees` victim jobs (default 16; 0 disables the action). Moved pods and
// the job are pipelined. Skipped when any placement strategy is spread (KAI's operator leaves
// the action out then; docs/kai-differences.md). Queue limits still apply to every placement.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class ConsolidationAction final : public framework::Action {
 public:
  std::string_view name() const override { return "consolidation"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
