#include "cli/plugin_command.h"

#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <sstream>

#include "cli/command_common.h"
#include "cli/report_document.h"
#include "cli/table.h"
#include "daytwo/capture.h"
#include "daytwo/views.h"
#include "kube/loader.h"
#include "kubeclient/client_factory.h"

namespace quotient::cli {
namespace {

using daytwo::Document;

constexpr char kBold[] = "\033[1m";
constexpr char kYellow[] = "\033[33m";
constexpr char kReset[] = "\033[0m";

std::string Title(const std::string& text, bool colour) {
  return colour ? std::string(kBold) + text + kReset + "\n" : text + "\n";
}

std::string Str(const Document& d) {
  if (d.is_null()) return "-";
  if (d.is_string()) return d.get<std::string>();
  return d.dump();
}

// The cluster (or --from's snapshot) as objects; on failure the message is printed and the exit
// code returned.
struct Loaded {
  core::ClusterObjects objects;
  Document snapshot;  // the captured list (live only)
};
std::optional<int> Load(const PluginFlags& flags, Loaded& loaded, std::ostream& err,
                        bool keep_snapshot) {
  kube::LoadResult result;
  if (!flags.from.empty()) {
    std::istringstream none;
    result = kube::LoadManifests({flags.from}, none);
  } else {
    Result<kubeclient::ConnectionConfig> connection =
        kubeclient::LoadConnectionConfig(flags.kubeconfig, flags.context);
    if (!connection.ok()) {
      err << "quotient: error: no cluster to talk to: " << connection.message()
          << " (set KUBECONFIG, pass --kubeconfig, or give a snapshot with --from)\n";
      return kExitBadInput;
    }
    auto client = kubeclient::MakeClient(*connection);
    Result<daytwo::CapturedCluster> captured = daytwo::CaptureCluster(*client);
    if (!captured.ok()) {
      err << "quotient: error: " << captured.message() << "\n";
      return kExitBadInput;
    }
    kube::DecodeManifestText(captured->list.dump(), "the cluster", result);
    if (keep_snapshot) loaded.snapshot = captured->list;
  }
  PrintDiagnostics(result.diagnostics, err);
  if (result.HasErrors()) return kExitBadInput;
  loaded.objects = std::move(result.objects);
  return std::nullopt;
}

// One cycle on the objects: `actions` false runs none (the cluster as it is: fair share, usage,
// queue tree), true the configured ones (what the scheduler would do next).
std::optional<int> RunCycle(const PluginFlags& flags, core::ClusterObjects objects, bool actions,
                            scheduler::RunReport& report, std::ostream& err) {
  scheduler::RunOptions options;
  if (std::optional<int> failed = LoadConfig(flags.config_path, "", options.config, err)) {
    return failed;
  }
  if (!actions) options.config.actions.clear();
  options.scheduler_name = flags.scheduler_name;
  options.node_pool_label_key = flags.node_pool_label_key;
  options.now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  report = scheduler::Run(std::move(objects), options);
  return std::nullopt;
}

void Print(const Document& doc, const PluginFlags& flags, std::ostream& out,
           const std::function<std::string()>& table) {
  if (flags.output == "json") {
    out << doc.dump(2) << "\n";
  } else if (flags.output == "yaml") {
    out << ToYaml(doc);
  } else {
    out << table();
  }
}

std::string QueuesTables(const Document& doc, const std::string& resource, bool colour) {
  std::string out;
  for (const char* r : {"gpu", "cpu", "memory"}) {
    if (resource != "all" && resource != r) continue;
    const std::string unit = std::string(r) == "gpu"   ? "GPUs"
                             : std::string(r) == "cpu" ? "cores"
                                                       : "GB";
    Table t({"QUEUE", "DESERVED", "LIMIT", "WEIGHT", "FAIR-SHARE", "ALLOCATED", "REQUESTED",
             "BORROWING"});
    for (const Document& q : doc["queues"]) {
      const Document& v = q[r];
      t.AddRow({std::string(static_cast<size_t>(q["depth"].get<int>()) * 2, ' ') +
                    q["name"].get<std::string>(),
                Str(v["deserved"]), Str(v["limit"]), Str(v["overQuotaWeight"]), Str(v["fairShare"]),
                Str(v["allocated"]), Str(v["requested"]), Str(v["borrowing"])});
    }
    out += Title(std::string("QUEUES: ") + r + " (" + unit + ", '-' = unlimited)", colour) +
           t.Render() + "\n";
  }
  if (!doc["borrowing"].empty()) {
    out += Title("BORROWING (GPUs)", colour);
    for (const Document& line : doc["borrowing"]) out += "  " + line.get<std::string>() + "\n";
  }
  return out;
}

std::string WhyText(const Document& why, bool colour) {
  std::string status = why["status"].get<std::string>();
  if (colour && status == "Pending") status = std::string(kYellow) + status + kReset;
  std::string out =
      Title(why["kind"].get<std::string>() + " " + why["target"].get<std::string>(), colour);
  out += "  status:     " + status + "\n";
  if (!why["podGroup"].is_null()) out += "  pod group:  " + Str(why["podGroup"]) + "\n";
  for (const Document& r : why["reasons"]) out += "  reason:     " + r.get<std::string>() + "\n";
  if (!why["queue"].is_null()) {
    const Document& q = why["queue"];
    out += "  queue:      " + Str(q["name"]) + ": deserved " + Str(q["deservedGpus"]) + ", limit " +
           Str(q["limitGpus"]) + ", fair share " + Str(q["fairShareGpus"]) + ", allocated " +
           Str(q["allocatedGpus"]) + ", requested " + Str(q["requestedGpus"]) + " GPUs\n";
  }
  if (why["podsWaiting"].get<int>() > 0) {
    out += "  asks for:   " + Str(why["gpusPerPod"]) + " GPUs per pod, " +
           std::to_string(why["podsWaiting"].get<int>()) + " pod(s) waiting\n";
  }
  if (!why["closestNodes"].empty()) {
    out += "  closest:   ";
    for (const Document& n : why["closestNodes"]) {
      out += " " + Str(n["node"]) + " (" + Str(n["freeGpus"]) + " of " + Str(n["gpus"]) +
             " GPUs free)";
    }
    out += "\n";
  }
  if (!why["whatWouldChangeIt"].empty()) {
    out += Title("WHAT WOULD CHANGE IT", colour);
    for (const Document& c : why["whatWouldChangeIt"]) out += "  - " + c.get<std::string>() + "\n";
  }
  return out;
}

std::string TopTables(const Document& top, bool colour) {
  Table nodes({"NODE", "POOL", "GPUS", "USED", "FREE", "STATUS", "BY QUEUE", "SHARED GPUS"});
  for (const Document& n : top["nodes"]) {
    std::string by_queue;
    for (const auto& [queue, gpus] : n["byQueue"].items()) {
      by_queue += (by_queue.empty() ? "" : ", ") + queue + " " + gpus.get<std::string>();
    }
    std::string shared;
    for (const Document& g : n["shared"]) {
      std::string parts;
      for (const Document& h : g["holders"]) {
        parts += (parts.empty() ? "" : " + ") + Str(h["queue"]) + " " + Str(h["gpus"]);
      }
      shared += (shared.empty() ? "" : "  ") + std::string("[") + parts + "]";
    }
    std::string status = Str(n["status"]);
    if (n["unhealthyGpus"].get<size_t>() > 0) {
      status += ", " + std::to_string(n["unhealthyGpus"].get<size_t>()) + " GPU(s) unhealthy";
    }
    nodes.AddRow({Str(n["name"]), n["pool"].get<std::string>().empty() ? "-" : Str(n["pool"]),
                  Str(n["gpus"]), Str(n["used"]), Str(n["free"]), status,
                  by_queue.empty() ? "-" : by_queue, shared.empty() ? "-" : shared});
  }
  Table queues({"QUEUE", "GPUS", "FAIR-SHARE", "RUNNING", "PENDING"});
  for (const Document& q : top["queues"]) {
    queues.AddRow(
        {std::string(static_cast<size_t>(q["depth"].get<int>()) * 2, ' ') + Str(q["name"]),
         Str(q["allocatedGpus"]), Str(q["fairShareGpus"]),
         std::to_string(q["runningPods"].get<int>()), std::to_string(q["pendingPods"].get<int>())});
  }
  return Title("NODES (GPUs)", colour) + nodes.Render() + "\n" + Title("QUEUES (GPUs)", colour) +
         queues.Render();
}

std::string WhatIfTables(const Document& doc, bool colour) {
  Table decisions({"ACTION", "KIND", "POD", "NODE", "ANYWAY", "REASON"});
  for (const Document& d : doc["decisions"]) {
    decisions.AddRow({Str(d["action"]), Str(d["kind"]), Str(d["pod"]), Str(d["node"]),
                      d["withoutTheChange"].get<bool>() ? "yes" : "no", Str(d["reason"])});
  }
  Table queues({"QUEUE", "FAIR-SHARE", "ALLOCATED"});
  for (const Document& q : doc["queues"]) {
    queues.AddRow(
        {std::string(static_cast<size_t>(q["depth"].get<int>()) * 2, ' ') + Str(q["name"]),
         Str(q["fairShareGpusBefore"]) + " -> " + Str(q["fairShareGpusAfter"]),
         Str(q["allocatedGpusBefore"]) + " -> " + Str(q["allocatedGpusAfter"])});
  }
  Table pending({"POD", "REASON"});
  for (const Document& p : doc["stillPending"]) pending.AddRow({Str(p["pod"]), Str(p["reason"])});
  return Title("DECISIONS (the next cycle with the change; ANYWAY: also without it)", colour) +
         decisions.Render() + "\n" +
         Title("QUEUES (GPUs at the end of the next cycle, without -> with the change)", colour) +
         queues.Render() + "\n" + Title("STILL PENDING", colour) + pending.Render();
}

}  // namespace

PluginCommands AddPluginCommands(CLI::App& app, PluginFlags& flags) {
  PluginCommands c;
  c.group = app.add_subcommand(
      "kubectl", "Day-2 tools; run as `kubectl quotient ...` when installed as kubectl-quotient");
  c.group->require_subcommand(1);
  // Every command takes the common flags itself, so they go anywhere after its name.
  auto common = [&](CLI::App* cmd) {
    cmd->add_option("--kubeconfig", flags.kubeconfig,
                    "kubeconfig file (default: $KUBECONFIG, in-cluster, ~/.kube/config)");
    cmd->add_option("--context", flags.context, "kubeconfig context (default: current-context)");
    cmd->add_option("--from", flags.from,
                    "Read this snapshot (file or folder) instead of the cluster");
    cmd->add_option("--scheduler-name", flags.scheduler_name,
                    "The scheduler whose pods count (default quotient)");
    cmd->add_option("--config", flags.config_path,
                    "The scheduler's configuration (KAI's format; default: the defaults)");
    cmd->add_option("--node-pool-label-key", flags.node_pool_label_key,
                    "The node-pool label (default kai.scheduler/node-pool)");
  };
  auto output = [&](CLI::App* cmd) {
    common(cmd);
    cmd->add_option("-o,--output", flags.output, "table (default), json or yaml")
        ->check(CLI::IsMember({"table", "json", "yaml"}));
  };
  c.queues = c.group->add_subcommand("queues", "The queue tree: quotas, fair share, usage");
  output(c.queues);
  c.queues->add_option("--resource", flags.resource, "gpu, cpu, memory or all (default)")
      ->check(CLI::IsMember({"gpu", "cpu", "memory", "all"}));
  c.why = c.group->add_subcommand("why", "Why a pod or PodGroup is pending, and what would help");
  output(c.why);
  c.why->add_option("target", flags.target, "POD or PODGROUP, as namespace/name or name with -n")
      ->required();
  c.why->add_option("-n,--namespace", flags.namespace_name, "Namespace of the target");
  c.top = c.group->add_subcommand("top", "GPU allocation per node and per queue");
  output(c.top);
  c.snapshot = c.group->add_subcommand(
      "snapshot", "Save the scheduling objects, stripped of secrets, for schedule/simulate");
  c.snapshot
      ->add_option("-o,--output", flags.snapshot_file, "FILE (.json: JSON, else YAML; - = stdout)")
      ->required();
  c.what_if = c.group->add_subcommand(
      "what-if", "What a cycle would do with the objects of FILE laid over the cluster");
  output(c.what_if);
  c.what_if->add_option("changes", flags.changes_file, "Objects to add or replace (YAML/JSON)")
      ->required();
  return c;
}

int RunPlugin(const PluginCommands& c, const PluginFlags& flags, std::ostream& out,
              std::ostream& err, bool colour) {
  if (flags.output != "table") colour = false;
  if (c.snapshot->parsed() && !flags.from.empty()) {
    err << "quotient: error: snapshot reads the cluster; --from is for the other commands\n";
    return kExitUsage;
  }
  Loaded loaded;
  if (std::optional<int> failed = Load(flags, loaded, err, c.snapshot->parsed())) return *failed;

  if (c.snapshot->parsed()) {
    const Document& list = loaded.snapshot;
    const bool json = flags.snapshot_file.ends_with(".json");
    const std::string text = json ? list.dump(1) + "\n" : ToYaml(list);
    if (flags.snapshot_file == "-") {
      out << text;
    } else {
      std::ofstream file(flags.snapshot_file);
      file << text;
      if (!file) {
        err << "quotient: error: cannot write " << flags.snapshot_file << "\n";
        return kExitBadInput;
      }
      err << "wrote " << list["items"].size() << " objects (" << loaded.objects.nodes.size()
          << " nodes, " << loaded.objects.pods.size() << " pods, " << loaded.objects.queues.size()
          << " queues, " << loaded.objects.pod_groups.size() << " pod groups) to "
          << flags.snapshot_file << "\n";
    }
    return kExitOk;
  }

  scheduler::RunReport now;
  if (c.queues->parsed() || c.top->parsed()) {
    if (auto failed = RunCycle(flags, loaded.objects, false, now, err)) return *failed;
    if (c.queues->parsed()) {
      const Document doc = daytwo::QueuesDocument(now, loaded.objects);
      Print(doc, flags, out, [&] { return QueuesTables(doc, flags.resource, colour); });
    } else {
      const Document doc = daytwo::TopDocument(now, loaded.objects, flags.node_pool_label_key);
      Print(doc, flags, out, [&] { return TopTables(doc, colour); });
    }
    return kExitOk;
  }
  if (c.why->parsed()) {
    std::string target = flags.target;
    if (target.find('/') == std::string::npos) {
      target = (flags.namespace_name.empty() ? "default" : flags.namespace_name) + "/" + target;
    }
    // The configured actions: a pod that would be placed now says so; and the cluster as it is.
    scheduler::RunReport next;
    if (auto failed = RunCycle(flags, loaded.objects, true, next, err)) return *failed;
    if (auto failed = RunCycle(flags, loaded.objects, false, now, err)) return *failed;
    Result<Document> why =
        daytwo::WhyDocument(target, next, now, loaded.objects, flags.node_pool_label_key);
    if (!why.ok()) {
      err << "quotient: error: " << why.message() << "\n";
      return kExitBadInput;
    }
    Print(*why, flags, out, [&] { return WhyText(*why, colour); });
    return kExitOk;
  }
  // what-if
  std::istringstream none;
  kube::LoadResult changes = kube::LoadManifests({flags.changes_file}, none);
  PrintDiagnostics(changes.diagnostics, err);
  if (changes.HasErrors()) return kExitBadInput;
  scheduler::RunReport before;
  if (auto failed = RunCycle(flags, loaded.objects, true, before, err)) return *failed;
  core::ClusterObjects changed = loaded.objects;
  daytwo::Overlay(changed, std::move(changes.objects));
  scheduler::RunReport after;
  if (auto failed = RunCycle(flags, std::move(changed), true, after, err)) return *failed;
  const Document doc = daytwo::WhatIfDocument(before, after);
  Print(doc, flags, out, [&] { return WhatIfTables(doc, colour); });
  return kExitOk;
}

}  // namespace quotient::cli
