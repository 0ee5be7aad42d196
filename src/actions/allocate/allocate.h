// The allocate action (KAI's allocate, kai-reference §2.3): place pending jobs on free
// resources, gang by gang, in fair-share order.
//
// For each job the JobQueue gives: select the tasks to place now (the gang's missing members, or
// one pod of elastic growth); check the queue's capacity (OverLimit, NonPreemptibleOverQuota);
// place each task on the best node that passes the predicates, allocating on idle resources or
// pipelining onto releasing ones; if any task cannot be placed the whole attempt is undone and
// the job gets a reason; if any task was pipelined, every task of the attempt is pipelined.
// A job that grew and still has pending pods goes back into the queue.
#pragma once

#include "framework/action.h"

namespace quotient::actions {

class AllocateAction final : public framework::Action {
 public:
  std::string_view name() const override { return "allocate"; }
  void Execute(framework::Session& session) override;
};

}  // namespace quotient::actions
