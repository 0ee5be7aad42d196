// The consolidation action (KAI's consolidation, kai-reference §2.3): a pending preemptible job
// that the cluster's free GPUs could hold, but no node can, moves other preemptible pods to make
// room — only if every moved pod is placed again (pure defragmentation), with at most
// `maxConsolidationPreemptees` victim jobs (default 16; 0 disables the action). Moved pods and
// the job are pipelined. Skipped when any placement strategy is spread (KAI's operator disables
// it then). Queue limits still apply to every placement.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class ConsolidationAction final : public framework::Action {
 public:
  std::string_view name() const override { return "consolidation"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
