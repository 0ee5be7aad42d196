#include "builders/snapshot_text.h"

#include <algorithm>
#include <type_traits>

namespace quotient::testing {
namespace {

using core::Diagnostic;
using core::DisruptionBudget;
using core::GpuDevice;
using core::Index;
using core::Job;
using core::Node;
using core::Pod;
using core::Queue;
using core::Snapshot;
using core::SubGroup;

template <typename T>
std::string Joined(const std::vector<T>& items) {
  std::string out;
  for (const T& item : items) {
    if constexpr (std::is_same_v<T, std::string>) {
      out += item + ";";
    } else {
      out += std::to_string(item) + ",";
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> DescribeSnapshot(const core::SnapshotBuild& b) {
  std::vector<std::string> out;
  const Snapshot& s = b.snapshot;
  for (const Node& n : s.nodes) {
    std::string line = "node " + n.name + " pool=" + n.node_pool +
                       " usable=" + std::to_string(n.usable) + " pods=";
    for (Index p : n.pods) line += s.pods[static_cast<size_t>(p)].key + ",";
    line += " used_cpu=" + std::to_string(n.used.cpu_milli.value()) +
            " used_gpu=" + std::to_string(n.used.gpu_milli.value()) + " gpus=";
    for (const GpuDevice& d : n.gpus) {
      line += std::to_string(static_cast<int>(d.state)) + ":" + d.group + ":" +
              std::to_string(d.used_portion_milli.value()) + ":";
      for (const GpuDevice::Holder& h : d.holders) {
        line += s.pods[static_cast<size_t>(h.pod)].key + "/" +
                std::to_string(h.portion_milli.value()) + "+";
      }
      line += ",";
    }
    out.push_back(line);
  }
  for (const Pod& p : s.pods) {
    out.push_back("pod " + p.key + " status=" + std::string(core::PodStatusName(p.status)) +
                  " node_name=" + p.node_name + " node=" + std::to_string(p.node) + " job=" +
                  std::to_string(p.job) + " cpu=" + std::to_string(p.request.cpu_milli.value()) +
                  " gpu=" + std::to_string(p.request.gpu_milli.value()) +
                  " budgets=" + Joined(p.budgets) + " problems=" + Joined(p.problems));
  }
  for (const Job& j : s.jobs) {
    std::string line =
        "job " + j.key + " implicit=" + std::to_string(j.implicit) +
        " queue=" + std::to_string(j.queue) + " priority=" + std::to_string(j.priority) +
        " preemptible=" + std::to_string(j.preemptible) + " min=" + std::to_string(j.min_member) +
        " pool=" + j.node_pool + " pods=" + Joined(j.pods) + " sub_groups=";
    for (const SubGroup& g : j.sub_groups) {
      line += g.name + "/" + std::to_string(g.leaf) + "/" + Joined(g.pods) + ";";
    }
    line += " problems=" + Joined(j.problems);
    out.push_back(line);
  }
  for (const Queue& q : s.queues) {
    out.push_back("queue " + q.name + " parent=" + std::to_string(q.parent));
  }
  for (const DisruptionBudget& d : s.budgets) {
    out.push_back("budget " + d.key + " pods=" + Joined(d.pods));
  }
  out.push_back("min_gpu_memory=" + std::to_string(s.min_node_gpu_memory_mib.value_or(-1)));
  out.push_back("max_gpu_memory=" + std::to_string(s.max_node_gpu_memory_mib.value_or(-1)));
  std::vector<std::string> warnings;
  for (const Diagnostic& d : b.diagnostics) {
    warnings.push_back("warning " + d.object + " " + d.field + " " + d.message);
  }
  std::sort(warnings.begin(), warnings.end());
  out.insert(out.end(), warnings.begin(), warnings.end());
  return out;
}

}  // namespace quotient::testing
