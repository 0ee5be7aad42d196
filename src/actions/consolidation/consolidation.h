// The consolidation action (KAI's consolidation, kai-reference §2.3): a pending preemptible job
// whose GPUs the cluster's free and releasing GPUs could hold (a job without GPUs always
// qualifies: moving pods can make room for its CPU and memory) moves other preemptible pods to
// make room — only if every moved pod is placed again (pure defragmentation), with at most
// `maxConsolidationPreemptees` victim jobs (default 16; 0 disables the action). Moved pods and
// the job are pipelined. It runs under any placement strategy, as KAI's scheduler does (KAI's
// operator, and our Helm chart, leave it out of a spread configuration's actions). Queue limits
// still apply to every placement.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class ConsolidationAction final : public framework::Action {
 public:
  std::string_view name() const override { return "consolidation"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
