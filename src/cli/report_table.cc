#include "cli/report_table.h"

#include "cli/table.h"
#include "core/quantity.h"

namespace quotient::cli {
namespace {

using core::ShareResource;

std::string Join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

// GPUs as decimals, CPU in cores, memory in GB (10^9) with up to one decimal for readability.
std::string Short(ShareResource r, core::Quantity q) {
  switch (r) {
    case ShareResource::kGpu:
      return core::FormatDecimal(q.value(), 3);
    case ShareResource::kCpu:
      return core::FormatDecimal(q.value(), 3);
    case ShareResource::kMemory:
      return core::FormatDecimal(q.value() / 100'000'000, 1) + "G";
  }
  return "";
}

std::string ShortBound(ShareResource r, const core::Bound& b) {
  return b.is_unlimited() ? "-" : Short(r, b.amount());
}

std::string DecisionsSection(const scheduler::RunReport& report) {
  std::string out;
  for (const scheduler::CycleReport& c : report.cycles) {
    Table t({"ACTION", "KIND", "POD", "NODE", "GPU-GROUPS", "REASON"});
    for (const framework::Decision& d : c.decisions) {
      t.AddRow({d.action, std::string(framework::DecisionKindName(d.kind)), d.pod, d.node,
                Join(d.gpu_groups, ","), d.reason});
    }
    out += "DECISIONS (cycle " + std::to_string(c.index) + ")\n" + t.Render() + "\n";
  }
  return out;
}

std::string PodsSection(const scheduler::RunReport& report) {
  Table t({"POD", "POD-GROUP", "QUEUE", "STATUS", "NODE", "GPU-GROUPS", "REASON"});
  for (const scheduler::PodReport& p : report.pods) {
    t.AddRow({p.pod, p.pod_group, p.queue, p.status, p.node.empty() ? "-" : p.node,
              p.gpu_groups.empty() ? "-" : Join(p.gpu_groups, ","), p.reason});
  }
  return "PODS\n" + t.Render() + "\n";
}

std::string GroupsSection(const scheduler::RunReport& report) {
  Table t({"POD-GROUP", "QUEUE", "MIN", "STATUS", "REASONS"});
  for (const scheduler::PodGroupReport& g : report.pod_groups) {
    t.AddRow({g.pod_group, g.queue, std::to_string(g.min_member), g.status, Join(g.reasons, "; ")});
  }
  return "POD GROUPS\n" + t.Render() + "\n";
}

std::string QueuesSection(const scheduler::RunReport& report) {
  std::string out;
  for (ShareResource r : core::kShareResources) {
    const std::string unit = r == ShareResource::kGpu   ? "GPUs"
                             : r == ShareResource::kCpu ? "cores"
                                                        : "GB";
    Table t({"QUEUE", "PARENT", "PRIORITY", "DESERVED", "LIMIT", "FAIR-SHARE", "ALLOCATED",
             "REQUESTED"});
    for (const scheduler::QueueReport& q : report.queues) {
      t.AddRow({q.name, q.parent.empty() ? "-" : q.parent, std::to_string(q.priority),
                ShortBound(r, q.deserved[r]), ShortBound(r, q.limit[r]), Short(r, q.fair_share[r]),
                Short(r, q.allocated[r]), Short(r, q.requested[r])});
    }
    out += "QUEUES: " + std::string(core::ShareResourceName(r)) + " (" + unit +
           ", '-' = unlimited)\n" + t.Render() + "\n";
  }
  return out;
}

}  // namespace

std::string ReportTables(const scheduler::RunReport& report) {
  return DecisionsSection(report) + PodsSection(report) + GroupsSection(report) +
         QueuesSection(report);
}

}  // namespace quotient::cli
