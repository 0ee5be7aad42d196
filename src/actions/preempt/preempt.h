// The preempt action (KAI's preempt, kai-reference §2.3, §3.5): inside one queue, a pending job
// evicts preemptible jobs of strictly lower priority. A non-preemptible preemptor must fit its
// queue's deserved quota; min-runtime protects recently started victims. The preemptor is
// pipelined and binds once its victims are gone.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class PreemptAction final : public framework::Action {
 public:
  std::string_view name() const override { return "preempt"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
