// UnfitCache: why pods of one shape fit on no node, kept up to date as the cycle changes nodes.
//
// In a full cluster most pending pods fit nowhere, and each needs the fit-error histogram over
// every node ("0/1000 nodes are available: ..."). Pods of the same shape (Placer::ShapeOf: same
// request, GPU sharing, node pool, tolerations and node selectors) get the same verdict from
// each node, so the verdicts are worked out once per shape and then redone only for the nodes a
// statement has changed since (framework::ClusterState::change_log). The queue check sits
// between the predicates and the resource fit; it is the same on every node for these pods (the
// placer sends only such pods here) and is applied per pod when the histogram is rendered, so
// one entry serves pods of every queue.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "actions/fit_errors.h"
#include "actions/node_fit.h"

namespace quotient::actions {

class UnfitCache {
 public:
  explicit UnfitCache(framework::Session& session) : session_(session) {}

  // The entry for `shape`, brought up to date; `pod` is any pod of that shape. Computed over
  // every node the first time.
  struct Entry;
  const Entry& Get(const std::string& shape, core::Index pod);
  bool Has(const std::string& shape) const { return entries_.count(shape) > 0; }

  // Whether a pod of the entry's shape could be placed now: some node passes the predicates and
  // the resource fit, and the pod's queue check passes.
  bool MightPlace(const Entry& entry, core::Index pod) const;
  // The histogram for `pod` (of the entry's shape) when MightPlace is false.
  void Render(const Entry& entry, core::Index pod, FitErrors& errors) const;

  struct Entry {
    size_t log_position = 0;             // change-log length the verdicts reflect
    std::vector<int32_t> verdict;        // by node: a reason id, or kFits
    std::vector<std::string> reasons;    // by id
    std::vector<bool> before_quota;      // by id: a predicate's reason, else a resource reason
    std::vector<int32_t> counts;         // by id: nodes with that reason now
    std::map<std::string, int32_t> ids;  // reason -> id
    int32_t fits = 0;                    // nodes passing the predicates and the resource fit
    int32_t passed = 0;                  // nodes passing the predicates
  };
  static constexpr int32_t kFits = -1;

 private:
  void Evaluate(Entry& entry, core::Index pod, core::Index node);
  void Forget(Entry& entry, core::Index node);
  const PlacementPolicy& PolicyFor(const std::string& node_pool);

  framework::Session& session_;
  std::map<std::string, Entry> entries_;
  std::map<std::string, PlacementPolicy> policies_;
};

// The reason a node gives when the pod's queue check fails there.
std::string QueueCapacityReason(const std::string& reason, const std::string& message);

}  // namespace quotient::actions
