// Placer: puts one pod on its best node through a statement — the step allocate, reclaim,
// preempt and consolidation share (docs/design/allocate.md, "Placing one pod").
#pragma once

#include <map>
#include <string>
#include <vector>

#include "actions/fit_errors.h"
#include "actions/node_fit.h"
#include "framework/statement.h"

namespace quotient::actions {

class Placer {
 public:
  explicit Placer(framework::Session& session) : session_(session) {}

  struct Options {
    bool pipeline_only = false;              // record a Pipeline even where idle resources suffice
    core::Index exclude_node = core::kNone;  // a victim being moved must leave its node
    // When set, only these nodes (in name order) are considered: a caller that knows the others
    // cannot fit (the victim solver) saves scanning them. Fit errors then cover only these.
    const std::vector<core::Index>* only_nodes = nullptr;
  };

  // Places `pod` on the best node that passes the predicates, the per-node queue check and the
  // resource fit: Allocate on idle resources, else Pipeline onto releasing ones. Returns false
  // and fills `errors` when no node fits.
  bool Place(framework::Statement& statement, core::Index pod, FitErrors& errors,
             const Options& options);
  bool Place(framework::Statement& statement, core::Index pod, FitErrors& errors) {
    return Place(statement, pod, errors, Options{});
  }

 private:
  const PlacementPolicy& PolicyFor(const std::string& node_pool);

  framework::Session& session_;
  std::map<std::string, PlacementPolicy> policies_;  // by node pool
};

// The placement strategy for nodes of `node_pool`, from the nodeplacement plugin's arguments
// (`gpu`, `cpu`: binpack | spread; `<pool>.gpu`, `<pool>.cpu` override them for one pool) and the
// gpupack / gpuspread plugins (default: follow the GPU strategy).
PlacementPolicy PolicyFor(const framework::SchedulerConfig& config, const std::string& node_pool);

}  // namespace quotient::actions
