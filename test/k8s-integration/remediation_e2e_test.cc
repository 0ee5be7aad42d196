// `quotient remediator` against the real API server, on fake nodes. The test plays the node
// agent (it sets the fault conditions as the agent does) and the node (it finishes the step and
// validation pods, changes the bootID for a reboot); everything else is the binary:
//   fault -> cordon + taint -> drain (a PDB-protected pod waits, a gang goes whole, DaemonSet
//   pods stay) -> remediation step -> validation pod -> hold-down -> uncordon;
//   a reboot step done by a new bootID; the escalation path with its evidence;
//   the rails: one remediation slot for two faults, a storm trips the breaker, flapping backs
//   off, the opt-out label is respected; and dry-run changes nothing.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "e2e_support.h"
#include "kubeclient/node_conditions.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::ConfigMaps;
using kubeclient::resources::Nodes;
using kubeclient::resources::Pods;
using nlohmann::json;

constexpr char kPoolLabel[] = "e2e.quotient.dev/pool";
constexpr char kDomainLabel[] = "e2e.quotient.dev/rack";

// Short windows so a whole incident fits in a test; the rails are the defaults unless `extra`
// says otherwise. The pool label is the test's own, so nodes of other tests are another pool.
std::string WriteConfig(const std::string& name, const std::string& extra) {
  const std::string path = Harness().data_dir() + "/remediator-" + name + ".yaml";
  std::ofstream(path) << "poolLabel: " << kPoolLabel << "\n"
                      << "failureDomainLabel: " << kDomainLabel << "\n"
                      << "evictionRetry: 1s\nholdDown: 3s\ndrainTimeout: 2m\n"
                      << "validationTimeout: 2m\n"
                      << extra;
  return path;
}

class RemediatorProcess {
 public:
  RemediatorProcess(const std::string& name, const std::string& ns, const std::string& config,
                    const std::vector<std::string>& extra = {})
      : log_(Harness().data_dir() + "/remediator-" + name + ".log"),
        process_(Arguments(ns, config, extra), false, log_) {
    EXPECT_TRUE(process_.started());
  }
  std::string Log() const {
    std::ifstream in(log_);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  static std::vector<std::string> Arguments(const std::string& ns, const std::string& config,
                                            const std::vector<std::string>& extra) {
    std::vector<std::string> args = {
        QUOTIENT_BINARY,   "remediator", "--kubeconfig",     Harness().admin_kubeconfig(),
        "--namespace",     ns,           "--step-image",     "quotient:e2e",
        "--config",        config,       "--listen-address", "127.0.0.1:0",
        "--resync-period", "1s",         "--log-level",      "debug"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::string log_;
  ChildProcess process_;
};

// The test's nodes in its own pool and rack.
void Place(kubeclient::Client& admin, const std::string& node, const std::string& pool,
           const std::string& rack) {
  const json patch = {{"metadata", {{"labels", {{kPoolLabel, pool}, {kDomainLabel, rack}}}}}};
  ASSERT_TRUE(admin.Patch(Nodes(), "", node, kubeclient::PatchType::kMerge, patch.dump()).ok());
}

// The agent's fault condition, as it writes it (kubeclient::SetNodeConditions).
void SetFault(kubeclient::Client& admin, const std::string& node, const std::string& type,
              const std::string& status, const std::string& reason) {
  auto set = kubeclient::SetNodeConditions(
      admin, node, {{type, status, reason, "[gpu=GPU-0 bdf=0000:3b:00.0] " + reason + " on GPU-0"}},
      std::chrono::system_clock::now());
  ASSERT_TRUE(set.ok()) << set.error().Describe();
}

json NodeObject(kubeclient::Client& admin, const std::string& node) {
  auto n = admin.Get(Nodes(), "", node);
  return n.ok() ? json::parse(n->json) : json::object();
}

std::string StateOf(kubeclient::Client& admin, const std::string& node) {
  return NodeObject(admin, node)["metadata"]
      .value("labels", json::object())
      .value("quotient.dev/remediation-state", "");
}

json RecordOf(kubeclient::Client& admin, const std::string& node) {
  const std::string text = NodeObject(admin, node)["metadata"]
                               .value("annotations", json::object())
                               .value("quotient.dev/remediation", "{}");
  return json::parse(text);
}

bool HasTaint(const json& node, const std::string& key) {
  for (const json& t : node["spec"].value("taints", json::array())) {
    if (t.value("key", "") == key) return true;
  }
  return false;
}

bool Cordoned(kubeclient::Client& admin, const std::string& node) {
  const json n = NodeObject(admin, node);
  return n["spec"].value("unschedulable", false) && HasTaint(n, "quotient.dev/unhealthy");
}

bool Uncordoned(kubeclient::Client& admin, const std::string& node) {
  const json n = NodeObject(admin, node);
  return !n["spec"].value("unschedulable", false) && !HasTaint(n, "quotient.dev/unhealthy") &&
         !HasTaint(n, "quotient.dev/hardware-repair");
}

// The step (or validation) pod for `node`, by step name: its name, or "" while there is none.
std::string StepPod(kubeclient::Client& admin, const std::string& ns, const std::string& node,
                    const std::string& step) {
  kubeclient::ListOptions options;
  options.label_selector = "quotient.dev/remediation-step=" + step;
  auto list = admin.List(Pods(), ns, options);
  if (!list.ok()) return "";
  std::string found;
  for (const auto& item : list->items) {
    const json pod = json::parse(item.json);
    if (pod["metadata"]["annotations"].value("quotient.dev/remediation-node", "") == node) {
      found = item.name;  // the newest attempt sorts last by name
    }
  }
  return found;
}

std::string WaitForStepPod(kubeclient::Client& admin, const std::string& ns,
                           const std::string& node, const std::string& step,
                           const std::string& not_this = "") {
  std::string name;
  EXPECT_TRUE(WaitFor(
      [&] {
        name = StepPod(admin, ns, node, step);
        return !name.empty() && name != not_this;
      },
      std::chrono::seconds(30)))
      << "no " << step << " pod for " << node;
  return name;
}

// The node's kubelet reports the pod finished. The node simulator first makes a new pod
// Running; a phase written before that would be overwritten, so the test waits for Running,
// writes the phase, and makes sure it stuck.
void Finish(kubeclient::Client& admin, const std::string& ns, const std::string& pod,
            const std::string& phase) {
  const auto phase_now = [&] {
    auto p = admin.Get(Pods(), ns, pod);
    return p.ok() ? JsonField(p->json, "status.phase") : "";
  };
  ASSERT_TRUE(WaitFor([&] { return phase_now() == "Running"; }, std::chrono::seconds(20)))
      << pod << " never ran: " << phase_now();
  const json patch = {{"status", {{"phase", phase}}}};
  auto patched =
      admin.Patch(Pods(), ns, pod, kubeclient::PatchType::kMerge, patch.dump(), "status");
  ASSERT_TRUE(patched.ok()) << patched.error().Describe();
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_EQ(phase_now(), phase) << pod;
}

bool Exists(kubeclient::Client& admin, const std::string& ns, const std::string& pod) {
  auto p = admin.Get(Pods(), ns, pod);
  return p.ok() && JsonField(p->json, "metadata.deletionTimestamp").empty();
}

void CreateBoundPod(kubeclient::Client& admin, const std::string& ns, const std::string& name,
                    const std::string& node, const json& labels = json::object(),
                    const json& annotations = json::object(), const json& owners = json::array()) {
  json pod = json::parse(PodJson(name, labels.dump()));
  pod["spec"]["nodeName"] = node;
  if (!annotations.empty()) pod["metadata"]["annotations"] = annotations;
  if (!owners.empty()) pod["metadata"]["ownerReferences"] = owners;
  auto created = admin.Create(Pods(), ns, pod.dump());
  ASSERT_TRUE(created.ok()) << name << ": " << created.error().Describe();
}

json IncidentRecord(kubeclient::Client& admin, const std::string& ns, const std::string& node) {
  kubeclient::ListOptions options;
  options.label_selector = "quotient.dev/remediation-incident=" + node;
  auto list = admin.List(ConfigMaps(), ns, options);
  if (!list.ok() || list->items.empty()) return json::object();
  return json::parse(list->items.back().json);
}

// The pod's PodScheduled message (the scheduler's pending reason), "" while there is none.
std::string PendingMessage(kubeclient::Client& admin, const std::string& ns,
                           const std::string& pod) {
  auto p = admin.Get(Pods(), ns, pod);
  if (!p.ok()) return "";
  for (const json& c : json::parse(p->json)["status"].value("conditions", json::array())) {
    if (c.value("type", "") == "PodScheduled") return c.value("message", "");
  }
  return "";
}

std::string DrainNote(kubeclient::Client& admin, const std::string& ns) {
  auto pg = admin.Get(kubeclient::resources::PodGroups(), ns, "gang");
  if (!pg.ok()) return "<no PodGroup>";
  return json::parse(pg->json)["metadata"]
      .value("annotations", json::object())
      .value("quotient.dev/drained-for-fault", "");
}

TEST(RemediationE2ETest, AFaultyNodeIsDrainedRepairedValidatedAndReturned) {
  TwoNodeCluster cluster("rem", {{"rem-team", -1}});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string faulty = cluster.nodes[0];
  const std::string other = cluster.nodes[1];
  for (const std::string& n : cluster.nodes) Place(admin, n, "rem-pool", "rem-rack");
  const std::string scheduler = "quotient-rem";
  SchedulerProcess scheduling(scheduler);

  // A plain pod, a pod under a PodDisruptionBudget that allows no disruption yet, a gang of two
  // 8-GPU pods across both nodes (with its PodGroup), and a DaemonSet's pod.
  CreateBoundPod(admin, ns, "plain", faulty);
  CreateBoundPod(admin, ns, "protected", faulty, {{"app", "protected"}});
  const json pdb = {
      {"apiVersion", "policy/v1"},
      {"kind", "PodDisruptionBudget"},
      {"metadata", {{"name", "protected"}}},
      {"spec", {{"minAvailable", 1}, {"selector", {{"matchLabels", {{"app", "protected"}}}}}}}};
  ASSERT_TRUE(admin.Create(kubeclient::resources::PodDisruptionBudgets(), ns, pdb.dump()).ok());
  const json pod_group = {{"apiVersion", "scheduling.run.ai/v2alpha2"},
                          {"kind", "PodGroup"},
                          {"metadata", {{"name", "gang"}}},
                          {"spec", {{"minMember", 2}, {"queue", "rem-team"}}}};
  ASSERT_TRUE(admin.Create(kubeclient::resources::PodGroups(), ns, pod_group.dump()).ok());
  auto gang_pod = [&](const std::string& name, const std::string& node) {
    json pod = json::parse(GpuPod(name, scheduler, "rem-team", 8, "gang"));
    if (!node.empty()) pod["spec"]["nodeName"] = node;
    auto created = admin.Create(Pods(), ns, pod.dump());
    ASSERT_TRUE(created.ok()) << name << ": " << created.error().Describe();
  };
  gang_pod("gang-0", faulty);
  gang_pod("gang-1", other);
  // The DaemonSet exists (the garbage collector removes pods of owners that do not); its
  // controller does not run here, so its pod is made by hand.
  const json daemonset = {
      {"apiVersion", "apps/v1"},
      {"kind", "DaemonSet"},
      {"metadata", {{"name", "agent"}}},
      {"spec",
       {{"selector", {{"matchLabels", {{"app", "agent"}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", "agent"}}}}},
          {"spec", {{"containers", {{{"name", "agent"}, {"image", "busybox"}}}}}}}}}}};
  auto ds =
      admin.Create(kubeclient::Resource{"apps", "v1", "daemonsets", true}, ns, daemonset.dump());
  ASSERT_TRUE(ds.ok()) << ds.error().Describe();
  CreateBoundPod(admin, ns, "ds-pod", faulty, {{"app", "agent"}}, json::object(),
                 json::array({{{"apiVersion", "apps/v1"},
                               {"kind", "DaemonSet"},
                               {"name", "agent"},
                               {"uid", ds->uid},
                               {"controller", true}}}));

  RemediatorProcess remediator("happy", ns, WriteConfig("happy", "rails:\n  backoffBase: 1h\n"));
  SetFault(admin, faulty, "GpuXidFatal", "True", "Xid79");

  // Cordoned with our taint at once (XID 79 is fatal), then drained.
  ASSERT_TRUE(WaitFor([&] { return Cordoned(admin, faulty); }, std::chrono::seconds(30)))
      << remediator.Log();
  EXPECT_EQ(NodeObject(admin, faulty)["spec"]["taints"][0].value("value", ""), "GpuXidFatal");
  ASSERT_TRUE(WaitFor(
      [&] {
        return !Exists(admin, ns, "plain") && !Exists(admin, ns, "gang-0") &&
               !Exists(admin, ns, "gang-1");
      },
      std::chrono::seconds(30)))
      << "the plain pod and the whole gang (its member on the healthy node too) are evicted\n"
      << remediator.Log();
  EXPECT_NE(DrainNote(admin, ns).find("drained from node " + faulty + " for a fault (incident "),
            std::string::npos)
      << "the PodGroup says why its pods went: " << DrainNote(admin, ns);

  // The gang's controller makes its pods again: they are scheduled at once if they fit, and
  // while they do not (one 8-GPU node is out) their pending reason says why they were requeued.
  gang_pod("gang-0b", "");
  gang_pod("gang-1b", "");
  ASSERT_TRUE(WaitFor(
      [&] { return PendingMessage(admin, ns, "gang-0b").starts_with("requeued: pods drained"); },
      std::chrono::seconds(30)))
      << PendingMessage(admin, ns, "gang-0b");

  // The PDB holds its pod: the drain waits, the DaemonSet pod stays, no step runs yet.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_TRUE(Exists(admin, ns, "protected"));
  EXPECT_TRUE(Exists(admin, ns, "ds-pod"));
  EXPECT_EQ(StateOf(admin, faulty), "draining");
  EXPECT_EQ(StepPod(admin, ns, faulty, "gpu-reset"), "");
  // The owner relaxes the budget; the disruption controller then allows one, and the retried
  // eviction goes through.
  const json relax = {{"spec", {{"minAvailable", 0}}}};
  ASSERT_TRUE(admin
                  .Patch(kubeclient::resources::PodDisruptionBudgets(), ns, "protected",
                         kubeclient::PatchType::kMerge, relax.dump())
                  .ok());
  ASSERT_TRUE(WaitFor([&] { return !Exists(admin, ns, "protected"); }, std::chrono::seconds(30)))
      << remediator.Log();

  // The first rung: a GPU reset pod, privileged on the node.
  const std::string reset = WaitForStepPod(admin, ns, faulty, "gpu-reset");
  auto reset_pod = admin.Get(Pods(), ns, reset);
  ASSERT_TRUE(reset_pod.ok());
  const json rp = json::parse(reset_pod->json);
  EXPECT_EQ(rp["spec"]["nodeName"], faulty);
  EXPECT_EQ(rp["spec"]["hostPID"], true);
  EXPECT_EQ(rp["spec"]["containers"][0]["image"], "quotient:e2e");
  EXPECT_TRUE(Exists(admin, ns, "ds-pod")) << "DaemonSet pods are never drained";
  EXPECT_EQ(StateOf(admin, faulty), "remediating");
  Finish(admin, ns, reset, "Succeeded");
  SetFault(admin, faulty, "GpuXidFatal", "False", "NoFatalXid");

  // Validation, then the hold-down, then back in service.
  const std::string validation = WaitForStepPod(admin, ns, faulty, "validate");
  auto vp = admin.Get(Pods(), ns, validation);
  ASSERT_TRUE(vp.ok());
  const json command = json::parse(vp->json)["spec"]["containers"][0]["command"];
  EXPECT_EQ(command, json::parse(R"(["quotient","validate","--expected-gpus","8"])"));
  EXPECT_TRUE(Cordoned(admin, faulty)) << "still out while validating";
  Finish(admin, ns, validation, "Succeeded");
  ASSERT_TRUE(WaitFor([&] { return Uncordoned(admin, faulty); }, std::chrono::seconds(30)))
      << remediator.Log();
  EXPECT_EQ(StateOf(admin, faulty), "healthy");
  const json incident = IncidentRecord(admin, ns, faulty);
  EXPECT_EQ(incident["data"].value("outcome", ""), "recovered") << incident.dump();
  const json record = json::parse(incident["data"].value("record.json", "{}"));
  ASSERT_FALSE(record.value("evidence", json::array()).empty());
  EXPECT_EQ(record["evidence"][0].value("reason", ""), "Xid79");

  // The node is back: the gang fits again, runs, and its PodGroup's note is gone.
  ASSERT_TRUE(WaitFor(
      [&] {
        return !NodeOf(admin, ns, "gang-0b").empty() && !NodeOf(admin, ns, "gang-1b").empty();
      },
      std::chrono::seconds(30)));
  EXPECT_TRUE(WaitFor([&] { return DrainNote(admin, ns).empty(); }, std::chrono::seconds(30)))
      << DrainNote(admin, ns);

  // Flapping: the same fault again within the backoff (1h after the first incident) does not
  // cordon the node again; it waits, and says why.
  SetFault(admin, faulty, "GpuXidFatal", "True", "Xid79");
  ASSERT_TRUE(WaitFor([&] { return RecordOf(admin, faulty).value("waiting", "") != ""; },
                      std::chrono::seconds(30)))
      << remediator.Log();
  EXPECT_NE(RecordOf(admin, faulty).value("waiting", "").find("backoff"), std::string::npos)
      << RecordOf(admin, faulty).dump();
  EXPECT_EQ(StateOf(admin, faulty), "suspect");
  EXPECT_TRUE(Uncordoned(admin, faulty));
}

TEST(RemediationE2ETest, ARebootIsDoneWhenTheNodeComesBackWithANewBootId) {
  TwoNodeCluster cluster("reb", {});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string node = cluster.nodes[0];
  for (const std::string& n : cluster.nodes) Place(admin, n, "reb-pool", "reb-rack");
  auto boot = [&](const std::string& id) {
    const json patch = {{"status", {{"nodeInfo", {{"bootID", id}}}}}};
    ASSERT_TRUE(
        admin.Patch(Nodes(), "", node, kubeclient::PatchType::kMerge, patch.dump(), "status").ok());
  };
  boot("boot-1");
  RemediatorProcess remediator("reboot", ns, WriteConfig("reboot", ""));
  SetFault(admin, node, "GpuLost", "True", "GpuLost");  // ladder: reboot

  const std::string reboot = WaitForStepPod(admin, ns, node, "reboot");
  auto rp = admin.Get(Pods(), ns, reboot);
  ASSERT_TRUE(rp.ok());
  EXPECT_EQ(
      json::parse(rp->json)["metadata"]["annotations"].value("quotient.dev/boot-id-before", ""),
      "boot-1");
  // The reboot kills its own pod; that is not a failure once the node is back with a new boot.
  std::this_thread::sleep_for(std::chrono::seconds(2));
  EXPECT_EQ(StateOf(admin, node), "remediating");
  boot("boot-2");
  Finish(admin, ns, reboot, "Failed");
  SetFault(admin, node, "GpuLost", "False", "AllGpusPresent");
  const std::string validation = WaitForStepPod(admin, ns, node, "validate");
  Finish(admin, ns, validation, "Succeeded");
  ASSERT_TRUE(WaitFor([&] { return Uncordoned(admin, node); }, std::chrono::seconds(30)))
      << remediator.Log();
  EXPECT_EQ(StateOf(admin, node), "healthy");
}

TEST(RemediationE2ETest, AFailedLadderEscalatesWithTheEvidenceAndKeepsTheNodeOut) {
  TwoNodeCluster cluster("esc", {});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string node = cluster.nodes[0];
  for (const std::string& n : cluster.nodes) Place(admin, n, "esc-pool", "esc-rack");
  RemediatorProcess remediator("escalate", ns, WriteConfig("escalate", ""));
  SetFault(admin, node, "GpuXidFatal", "True", "Xid79");

  const std::string reset = WaitForStepPod(admin, ns, node, "gpu-reset");
  Finish(admin, ns, reset, "Failed");
  const std::string reboot = WaitForStepPod(admin, ns, node, "reboot");
  Finish(admin, ns, reboot, "Failed");  // and the node never went down: the bootID is the same
  ASSERT_TRUE(
      WaitFor([&] { return StateOf(admin, node) == "escalated"; }, std::chrono::seconds(30)))
      << remediator.Log();
  const json n = NodeObject(admin, node);
  EXPECT_TRUE(HasTaint(n, "quotient.dev/hardware-repair"));
  EXPECT_TRUE(HasTaint(n, "quotient.dev/unhealthy"));
  EXPECT_TRUE(n["spec"].value("unschedulable", false));
  ASSERT_TRUE(WaitFor(
      [&] { return IncidentRecord(admin, ns, node)["data"].value("outcome", "") == "escalated"; },
      std::chrono::seconds(10)));
  const json record =
      json::parse(IncidentRecord(admin, ns, node)["data"].value("record.json", "{}"));
  ASSERT_FALSE(record.value("evidence", json::array()).empty());
  EXPECT_EQ(record["evidence"][0].value("type", ""), "GpuXidFatal");
  EXPECT_NE(record["evidence"][0].value("message", "").find("GPU-0"), std::string::npos);
  // It stays so: escalation waits for a person.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(StateOf(admin, node), "escalated");
}

TEST(RemediationE2ETest, OneSlotPerRackTheOptOutLabelAndDryRun) {
  TwoNodeCluster cluster("slot", {});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  // Two faults (different reasons, so the breaker's same-reason rule stays closed) in one rack
  // with one slot: the first by name is taken out, the other waits.
  for (const std::string& n : cluster.nodes) Place(admin, n, "slot-pool", "slot-rack");
  RemediatorProcess remediator(
      "slot", ns, WriteConfig("slot", "rails:\n  maxPerDomain: 1\n  breakerPercent: 100\n"));
  SetFault(admin, cluster.nodes[0], "GpuXidFatal", "True", "Xid79");
  SetFault(admin, cluster.nodes[1], "GpuXidFatal", "True", "Xid48");
  ASSERT_TRUE(WaitFor([&] { return Cordoned(admin, cluster.nodes[0]); }, std::chrono::seconds(30)))
      << remediator.Log();
  ASSERT_TRUE(WaitFor([&] { return RecordOf(admin, cluster.nodes[1]).value("waiting", "") != ""; },
                      std::chrono::seconds(30)));
  EXPECT_EQ(StateOf(admin, cluster.nodes[1]), "suspect");
  EXPECT_TRUE(Uncordoned(admin, cluster.nodes[1]));
  EXPECT_NE(RecordOf(admin, cluster.nodes[1]).value("waiting", "").find("slot-rack"),
            std::string::npos)
      << RecordOf(admin, cluster.nodes[1]).dump();
}

TEST(RemediationE2ETest, AStormOfOneReasonTripsTheBreakerAndNothingIsCordoned) {
  TwoNodeCluster cluster("storm", {});
  kubeclient::Client& admin = *cluster.admin;
  for (const std::string& n : cluster.nodes) Place(admin, n, "storm-pool", "storm-" + n);
  RemediatorProcess remediator(
      "storm", cluster.ns,
      WriteConfig("storm", "rails:\n  breakerSameReason: 2\n  breakerPercent: 100\n"));
  SetFault(admin, cluster.nodes[0], "GpuXidFatal", "True", "Xid79");
  SetFault(admin, cluster.nodes[1], "GpuXidFatal", "True", "Xid79");
  for (const std::string& n : cluster.nodes) {
    ASSERT_TRUE(WaitFor([&] { return RecordOf(admin, n).value("waiting", "") != ""; },
                        std::chrono::seconds(30)))
        << remediator.Log();
    EXPECT_NE(RecordOf(admin, n).value("waiting", "").find("breaker"), std::string::npos)
        << RecordOf(admin, n).dump();
  }
  std::this_thread::sleep_for(std::chrono::seconds(2));
  for (const std::string& n : cluster.nodes) {
    EXPECT_TRUE(Uncordoned(admin, n)) << n;
    EXPECT_EQ(StateOf(admin, n), "suspect") << n;
  }
}

TEST(RemediationE2ETest, AnOptedOutNodeAndADryRunAreLeftAsTheyAre) {
  TwoNodeCluster cluster("hands", {});
  kubeclient::Client& admin = *cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string opted_out = cluster.nodes[0];
  const std::string watched = cluster.nodes[1];
  Place(admin, opted_out, "hands-pool", "hands-1");
  Place(admin, watched, "hands-pool", "hands-2");
  const json label = {{"metadata", {{"labels", {{"quotient.dev/remediation", "disabled"}}}}}};
  ASSERT_TRUE(
      admin.Patch(Nodes(), "", opted_out, kubeclient::PatchType::kMerge, label.dump()).ok());
  CreateBoundPod(admin, ns, "work", watched);
  {
    RemediatorProcess dry("dry", ns, WriteConfig("dry", ""), {"--dry-run"});
    SetFault(admin, watched, "GpuXidFatal", "True", "Xid79");
    ASSERT_TRUE(WaitFor([&] { return dry.Log().find("would") != std::string::npos; },
                        std::chrono::seconds(30)))
        << dry.Log();
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_TRUE(Uncordoned(admin, watched)) << "a dry run changes nothing";
    EXPECT_EQ(StateOf(admin, watched), "") << "not even the record";
    EXPECT_TRUE(Exists(admin, ns, "work"));
  }
  SetFault(admin, watched, "GpuXidFatal", "False", "NoFatalXid");
  RemediatorProcess remediator("hands", ns, WriteConfig("hands", ""));
  SetFault(admin, opted_out, "GpuXidFatal", "True", "Xid79");
  std::this_thread::sleep_for(std::chrono::seconds(4));
  EXPECT_TRUE(Uncordoned(admin, opted_out)) << remediator.Log();
  EXPECT_EQ(StepPod(admin, ns, opted_out, "gpu-reset"), "");
}

}  // namespace
}  // namespace quotient::k8s_integration
