// FitErrors: why a task found no node, as a histogram over nodes (KAI's fit-error text,
// kai-reference §12.4): "0/4 nodes are available: 2 node(s) didn't have enough resources: GPUs,
// 2 node(s) had untolerated taint {dedicated: infra}." Reasons are listed by name, so the text is
// the same every run.
#pragma once

#include <map>
#include <string>

namespace quotient::actions {

class FitErrors {
 public:
  void Add(const std::string& reason, int nodes = 1) { counts_[reason] += nodes; }
  void set_nodes(size_t nodes) { nodes_ = nodes; }
  std::string Message() const;

 private:
  std::map<std::string, int> counts_;
  size_t nodes_ = 0;
};

}  // namespace quotient::actions
