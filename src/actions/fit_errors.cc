#include "actions/fit_errors.h"

namespace quotient::actions {

std::string FitErrors::Message() const {
  if (nodes_ == 0) return "0/0 nodes are available: the cluster has no nodes.";
  std::string out = "0/" + std::to_string(nodes_) + " nodes are available: ";
  bool first = true;
  for (const auto& [reason, count] : counts_) {
    out += (first ? "" : ", ") + std::to_string(count) + " " + reason;
    first = false;
  }
  return out + ".";
}

}  // namespace quotient::actions
