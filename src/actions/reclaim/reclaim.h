// The reclaim action (KAI's reclaim, kai-reference §2.3, §3.4): a pending job whose queue is
// within its fair share takes resources from preemptible jobs of other queues, when the fairness
// rules (fairshare/reclaimable.h) allow the scenario. Victims are chosen by the victim solver;
// the reclaimer is pipelined and binds once its victims are gone.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class ReclaimAction final : public framework::Action {
 public:
  std::string_view name() const override { return "reclaim"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
