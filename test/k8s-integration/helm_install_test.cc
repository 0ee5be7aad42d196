// The Helm chart (deploy/helm/quotient) with the real `helm` command (test/helm-tool) against the
// real API server: it lints and renders; it installs next to the CRDs the harness created from the
// chart's own crds/ folder; what it creates reads back with the chart's values; and two replicas
// of the scheduler binary, running as the chart's ServiceAccount (a TokenRequest token, so with
// nothing but the chart's RBAC), with the chart's configuration and the flags of the chart's
// Deployment, elect one leader, answer the probes, bind a GPU pod in the chart's default-queue,
// say why a pod that cannot fit is pending, and are refused what the chart does not grant. The
// node agent and the remediator: their objects as the chart's rules say (host paths, hardening,
// flags, RBAC), and both binaries, each with a token of its chart ServiceAccount, publish a fault
// and act on it (cordon, drain, a step pod) without being refused anything.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "child_process.h"
#include "cluster.h"

extern char** environ;

namespace quotient::k8s_integration {
namespace {

kubeclient::ListOptions Selecting(const std::string& label_selector) {
  kubeclient::ListOptions options;
  options.label_selector = label_selector;
  return options;
}

using kubeclient::ApiReason;
using kubeclient::Resource;
using kubeclient::resources::Nodes;
using kubeclient::resources::Pods;

const Resource kServiceAccounts{"", "v1", "serviceaccounts", true};
const Resource kServices{"", "v1", "services", true};
const Resource kSecrets{"", "v1", "secrets", true};
const Resource kDeployments{"apps", "v1", "deployments", true};
const Resource kDaemonSets{"apps", "v1", "daemonsets", true};
const Resource kRoles{"rbac.authorization.k8s.io", "v1", "roles", true};
const Resource kRoleBindings{"rbac.authorization.k8s.io", "v1", "rolebindings", true};
const Resource kPriorityClasses{"scheduling.k8s.io", "v1", "priorityclasses", false};
const Resource kMutatingConfigurations{"admissionregistration.k8s.io", "v1",
                                       "mutatingwebhookconfigurations", false};
const Resource kValidatingConfigurations{"admissionregistration.k8s.io", "v1",
                                         "validatingwebhookconfigurations", false};

// The release: its name contains the chart's, so its objects are named after it.
const std::string kRelease = "quotient-it";
// The chart's default scheduler name.
const std::string kSchedulerName = "quotient";

std::string TestDir() {
  std::string dir = Harness().data_dir() + "/helm-test";
  std::filesystem::create_directories(dir);
  return dir;
}

// helm with its cache, configuration and data under the test's folder (not the user's home).
CommandResult Helm(std::vector<std::string> args) {
  args.insert(args.begin(), QUOTIENT_HELM);
  std::string home = TestDir() + "/helm-home";
  return RunCommand(args,
                    {"HELM_CACHE_HOME=" + home + "/cache", "HELM_CONFIG_HOME=" + home + "/config",
                     "HELM_DATA_HOME=" + home + "/data"});
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

nlohmann::json GetJson(kubeclient::Client& client, const Resource& resource, const std::string& ns,
                       const std::string& name) {
  auto object = client.Get(resource, ns, name);
  EXPECT_TRUE(object.ok()) << resource.Describe() << " " << ns << "/" << name << ": "
                           << (object.ok() ? "" : object.error().Describe());
  return object.ok() ? nlohmann::json::parse(object->json) : nlohmann::json::object();
}

// A Role's or ClusterRole's rules as "group/resource" -> verbs ("" is the core group).
std::map<std::string, std::set<std::string>> RuleVerbs(const nlohmann::json& role) {
  std::map<std::string, std::set<std::string>> verbs;
  for (const auto& rule : role.value("rules", nlohmann::json::array())) {
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const auto& verb : rule["verbs"]) {
          verbs[group.get<std::string>() + "/" + resource.get<std::string>()].insert(verb);
        }
      }
    }
  }
  return verbs;
}

using Verbs = std::set<std::string>;

bool Contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// How often `needle` occurs in `text`.
size_t Occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HelmChartTest, LintsAndRenders) {
  CommandResult lint = Helm({"lint", QUOTIENT_CHART_DIR});
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  lint = Helm({"lint", QUOTIENT_CHART_DIR, "--set", "placementStrategy=spread"});
  EXPECT_EQ(lint.exit_code, 0) << lint.output;

  CommandResult all = Helm({"template", "quotient", QUOTIENT_CHART_DIR, "-n", "quotient-system"});
  ASSERT_EQ(all.exit_code, 0) << all.output;
  for (const char* kind :
       {"kind: ServiceAccount", "kind: ClusterRole", "kind: ClusterRoleBinding", "kind: Role",
        "kind: RoleBinding", "kind: ConfigMap", "kind: Service", "kind: Deployment",
        "kind: PriorityClass", "kind: Queue", "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration", "kind: Secret", "kind: DaemonSet",
        "kind: Namespace"}) {
    EXPECT_NE(all.output.find(kind), std::string::npos) << kind;
  }
  // The webhook with cert-manager: a Certificate (from a self-signed Issuer unless one is
  // named) and the CA injected into both configurations; no chart-made Secret.
  CommandResult cert_manager =
      Helm({"template", "quotient", QUOTIENT_CHART_DIR, "-n", "quotient-system", "--show-only",
            "templates/webhook.yaml", "--set", "webhook.certManager.enabled=true"});
  ASSERT_EQ(cert_manager.exit_code, 0) << cert_manager.output;
  EXPECT_NE(cert_manager.output.find("kind: Certificate"), std::string::npos);
  EXPECT_NE(cert_manager.output.find("selfSigned: {}"), std::string::npos);
  EXPECT_EQ(cert_manager.output.find("kind: Secret"), std::string::npos);
  EXPECT_EQ(cert_manager.output.find("caBundle"), std::string::npos);
  size_t injections = 0;
  for (size_t at = 0; (at = cert_manager.output.find(
                           "cert-manager.io/inject-ca-from: quotient-system/quotient-webhook",
                           at)) != std::string::npos;
       ++at) {
    ++injections;
  }
  EXPECT_EQ(injections, 2u) << cert_manager.output;
  // GPU sharing off: no reservation namespace, and the scheduler binds fractions as any pod.
  CommandResult no_sharing = Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--set",
                                   "gpuSharing.enabled=false,interposer.enabled=false"});
  ASSERT_EQ(no_sharing.exit_code, 0) << no_sharing.output;
  EXPECT_EQ(no_sharing.output.find("quotient-reservations"), std::string::npos);
  EXPECT_EQ(no_sharing.output.find("--resource-reservation-namespace"), std::string::npos);
  EXPECT_NE(no_sharing.output.find("--gpu-sharing=false"), std::string::npos);
  EXPECT_EQ(no_sharing.output.find("name: quotient-interposer"), std::string::npos);
  // binpack (the default): all five actions, gpupack.
  CommandResult binpack =
      Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--show-only", "templates/configmap.yaml"});
  ASSERT_EQ(binpack.exit_code, 0) << binpack.output;
  EXPECT_NE(binpack.output.find(
                R"(actions: "allocate, consolidation, reclaim, preempt, stalegangeviction")"),
            std::string::npos)
      << binpack.output;
  EXPECT_NE(binpack.output.find("gpu: binpack"), std::string::npos) << binpack.output;
  EXPECT_NE(binpack.output.find("name: gpupack"), std::string::npos) << binpack.output;
  // spread: no consolidation (KAI's operator drops it), gpuspread.
  CommandResult spread = Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--show-only",
                               "templates/configmap.yaml", "--set", "placementStrategy=spread"});
  ASSERT_EQ(spread.exit_code, 0) << spread.output;
  EXPECT_NE(spread.output.find(R"(actions: "allocate, reclaim, preempt, stalegangeviction")"),
            std::string::npos)
      << spread.output;
  EXPECT_NE(spread.output.find("gpu: spread"), std::string::npos) << spread.output;
  EXPECT_NE(spread.output.find("cpu: spread"), std::string::npos) << spread.output;
  EXPECT_NE(spread.output.find("name: gpuspread"), std::string::npos) << spread.output;
  // fragmentation: the GPU strategy only; CPUs bin-packed, consolidation kept.
  CommandResult fragmentation =
      Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--show-only", "templates/configmap.yaml",
            "--set", "placementStrategy=fragmentation"});
  ASSERT_EQ(fragmentation.exit_code, 0) << fragmentation.output;
  EXPECT_NE(fragmentation.output.find("gpu: fragmentation"), std::string::npos)
      << fragmentation.output;
  EXPECT_NE(fragmentation.output.find("cpu: binpack"), std::string::npos) << fragmentation.output;
  EXPECT_NE(fragmentation.output.find("consolidation"), std::string::npos) << fragmentation.output;
  // A strategy the scheduler does not know is refused at render time.
  CommandResult bad =
      Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--set", "placementStrategy=diagonal"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("placementStrategy must be binpack, spread or fragmentation"),
            std::string::npos)
      << bad.output;
  // The dashboard is off unless asked for; on, the scheduler serves it (docs/dashboard.md).
  CommandResult no_dashboard = Helm(
      {"template", "quotient", QUOTIENT_CHART_DIR, "--show-only", "templates/deployment.yaml"});
  ASSERT_EQ(no_dashboard.exit_code, 0) << no_dashboard.output;
  EXPECT_EQ(no_dashboard.output.find("--dashboard"), std::string::npos);
  CommandResult dashboard = Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--show-only",
                                  "templates/deployment.yaml", "--set", "dashboard.enabled=true"});
  ASSERT_EQ(dashboard.exit_code, 0) << dashboard.output;
  EXPECT_EQ(Occurrences(dashboard.output, "- --dashboard\n"), 1u) << dashboard.output;
  lint = Helm({"lint", QUOTIENT_CHART_DIR, "--set", "dashboard.enabled=true"});
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
  // The cluster-wide defaults can be left out (KAI already installed them, say).
  CommandResult without = Helm({"template", "quotient", QUOTIENT_CHART_DIR, "--set",
                                "priorityClasses.create=false,defaultQueues.create=false"});
  ASSERT_EQ(without.exit_code, 0) << without.output;
  EXPECT_EQ(without.output.find("kind: PriorityClass"), std::string::npos);
  EXPECT_EQ(without.output.find("kind: Queue"), std::string::npos);
}

// The node agent and the remediator as their values say: optional flags and objects only when
// asked for, the policy and the configuration carried into their ConfigMaps, each gone when
// disabled.
TEST(HelmChartTest, RendersTheNodeAgentAndTheRemediatorFromTheirValues) {
  const std::string agent_only = "templates/node-agent.yaml";
  const std::string remediator_only = "templates/remediator.yaml";
  auto render = [](const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"template", "quotient", QUOTIENT_CHART_DIR, "-n",
                                     "quotient-system"};
    args.insert(args.end(), extra.begin(), extra.end());
    CommandResult r = Helm(args);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  };

  // Defaults: both deployed; no policy ConfigMap, no optional flag, not privileged.
  const std::string agent = render({"--show-only", agent_only});
  EXPECT_NE(agent.find("kind: DaemonSet"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("kind: ConfigMap"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("--policy-file"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("--expected-ib-rate-gbps"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("--exclude-ib-device"), std::string::npos) << agent;
  EXPECT_EQ(agent.find("privileged: true"), std::string::npos) << agent;
  const std::string remediator = render({"--show-only", remediator_only});
  EXPECT_NE(remediator.find("kind: Deployment"), std::string::npos) << remediator;
  EXPECT_NE(remediator.find("name: quotient-remediation-step"), std::string::npos) << remediator;
  EXPECT_EQ(remediator.find("--dry-run"), std::string::npos) << remediator;
  EXPECT_EQ(remediator.find("--runtime-class-name"), std::string::npos) << remediator;
  EXPECT_NE(remediator.find("spec:\n  replicas: 1\n"), std::string::npos) << remediator;
  EXPECT_EQ(remediator.find("--step-image-pull-secret"), std::string::npos) << remediator;
  // A private registry: the step pods pull the image with the chart's secrets too.
  const std::string pulled =
      render({"--show-only", remediator_only, "--set",
              "imagePullSecrets[0].name=regcred,imagePullSecrets[1].name=mirror"});
  EXPECT_NE(pulled.find("- --step-image-pull-secret=regcred\n"), std::string::npos) << pulled;
  EXPECT_NE(pulled.find("- --step-image-pull-secret=mirror\n"), std::string::npos) << pulled;

  // The agent's values: a policy (a ConfigMap, mounted and passed), IB settings, the log format.
  const std::string values = TestDir() + "/node-agent-values.yaml";
  WriteFile(values,
            "nodeAgent:\n"
            "  policy:\n"
            "    healthy_polls_to_clear: 5\n"
            "    signals:\n"
            "      pcie-width: {confirm: polls, count: 4}\n"
            "  expectedIbRateGbps: 400\n"
            "  excludeIbDevices: [mlx5_4, mlx5_5]\n"
            "  logFormat: text\n"
            "  runtimeClassName: nvidia\n"
            "  extraArgs: [--expected-gpus=8]\n");
  const std::string tuned = render({"--show-only", agent_only, "-f", values});
  for (const char* text :
       {"name: quotient-node-agent-policy", "  policy.yaml: |\n    healthy_polls_to_clear: 5\n",
        "count: 4", "- --policy-file=/etc/quotient/node-agent/policy.yaml",
        "mountPath: /etc/quotient/node-agent", "checksum/policy:", "- --expected-ib-rate-gbps=400",
        "- --exclude-ib-device=mlx5_4\n", "- --exclude-ib-device=mlx5_5\n", "- --log-format=text",
        "runtimeClassName: nvidia", "- --expected-gpus=8"}) {
    EXPECT_NE(tuned.find(text), std::string::npos) << text << "\n" << tuned;
  }
  // privileged (the opt-in for /dev/kmsg): the API server refuses allowPrivilegeEscalation=false
  // beside it, so it is left out.
  const std::string privileged =
      render({"--show-only", agent_only, "--set", "nodeAgent.privileged=true"});
  EXPECT_NE(privileged.find("privileged: true"), std::string::npos) << privileged;
  EXPECT_EQ(privileged.find("allowPrivilegeEscalation"), std::string::npos) << privileged;
  EXPECT_EQ(Occurrences(privileged, "hostPath:"), 4u) << privileged;

  // The remediator's values: the configuration as given, the dry-run and runtime-class flags.
  const std::string configured =
      render({"--show-only", remediator_only, "--set",
              "remediator.dryRun=true,remediator.stepRuntimeClassName=nvidia,"
              "remediator.config.drainTimeout=1h,remediator.config.rails.maxGlobal=4"});
  for (const char* text :
       {"  remediator.yaml: |\n    drainTimeout: 1h\n    rails:\n      maxGlobal: 4\n",
        "- --dry-run\n", "- --runtime-class-name=nvidia\n"}) {
    EXPECT_NE(configured.find(text), std::string::npos) << text << "\n" << configured;
  }
  // A changed configuration rolls the pod.
  auto checksum = [](const std::string& text) {
    size_t at = text.find("checksum/config: ");
    return at == std::string::npos ? std::string() : text.substr(at, 81);
  };
  EXPECT_FALSE(checksum(remediator).empty());
  EXPECT_NE(checksum(remediator), checksum(configured));

  // Both are in the full release by default, and each is gone when disabled.
  const std::string all = render({});
  for (const char* name : {"name: quotient-node-agent\n", "name: quotient-remediator\n",
                           "name: quotient-remediation-step\n"}) {
    EXPECT_NE(all.find(name), std::string::npos) << name;
  }
  const std::string no_agent = render({"--set", "nodeAgent.enabled=false"});
  EXPECT_EQ(no_agent.find("node-agent"), std::string::npos) << no_agent;
  EXPECT_NE(no_agent.find("name: quotient-remediator\n"), std::string::npos);
  const std::string no_remediator = render({"--set", "remediator.enabled=false"});
  EXPECT_EQ(no_remediator.find("quotient-remediat"), std::string::npos) << no_remediator;
  EXPECT_NE(no_remediator.find("name: quotient-node-agent\n"), std::string::npos);
  CommandResult lint = Helm({"lint", QUOTIENT_CHART_DIR, "-f", values, "--set",
                             "nodeAgent.privileged=true,remediator.config.rails.maxPerDomain=2"});
  EXPECT_EQ(lint.exit_code, 0) << lint.output;
}

// One release for the suite (its PriorityClasses and queues are cluster-wide): installed before
// the first test, uninstalled after the last.
class HelmInstallTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    namespace_ = "it-helm-" + std::to_string(getpid());
    install_ = Helm({"install", kRelease, QUOTIENT_CHART_DIR, "-n", namespace_,
                     "--create-namespace", "--kubeconfig", Harness().admin_kubeconfig(), "--set",
                     // No webhook replica: the fake nodes run no containers, so a covered pod
                     // create would wait out the webhook's timeout; without endpoints it fails over
                     // at once (failurePolicy Ignore).
                     // The remediator likewise: the test runs its binary with the
                     // Deployment's flags. One rail set here must reach its ConfigMap.
                     "replicas=0,webhook.replicas=0,remediator.replicas=0,"
                     "remediator.config.rails.maxPerDomain=3",
                     "--wait=false"});
  }
  static void TearDownTestSuite() {
    CommandResult uninstall = Helm({"uninstall", kRelease, "-n", namespace_, "--kubeconfig",
                                    Harness().admin_kubeconfig(), "--wait=false"});
    EXPECT_EQ(uninstall.exit_code, 0) << uninstall.output;
    auto admin = AdminClient();
    // Helm removed what it created, cluster-wide objects included (CRDs excepted).
    EXPECT_TRUE(admin->Get(kPriorityClasses, "", "train").Is(ApiReason::kNotFound));
    EXPECT_TRUE(
        admin->Get(kubeclient::resources::Queues(), "", "default-queue").Is(ApiReason::kNotFound));
    EXPECT_TRUE(
        admin->Get(kubeclient::resources::ClusterRoles(), "", kRelease).Is(ApiReason::kNotFound));
    EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", namespace_).ok());
  }
  void SetUp() override { ASSERT_EQ(install_.exit_code, 0) << install_.output; }

  static std::string namespace_;
  static CommandResult install_;
};
std::string HelmInstallTest::namespace_;
CommandResult HelmInstallTest::install_;

TEST_F(HelmInstallTest, CreatesTheObjectsWithTheChartsValues) {
  auto admin = AdminClient();
  const std::string& ns = namespace_;
  GetJson(*admin, kServiceAccounts, ns, kRelease);

  // RBAC: the ClusterRole bound to the ServiceAccount; the Lease Role in the release namespace.
  nlohmann::json role = GetJson(*admin, kubeclient::resources::ClusterRoles(), "", kRelease);
  std::map<std::string, std::set<std::string>> verbs;  // "group/resource" -> verbs
  for (const auto& rule : role["rules"]) {
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const auto& verb : rule["verbs"]) {
          verbs[group.get<std::string>() + "/" + resource.get<std::string>()].insert(verb);
        }
      }
    }
  }
  EXPECT_EQ(verbs["/pods/binding"], std::set<std::string>{"create"});
  EXPECT_EQ(verbs["/pods/eviction"], std::set<std::string>{"create"});
  EXPECT_EQ(verbs["/pods/status"], std::set<std::string>{"patch"});
  EXPECT_EQ(verbs["/nodes"], (std::set<std::string>{"get", "list", "watch"}));
  // patch: a fractional pod's GPU group label, written before its bind.
  EXPECT_EQ(verbs["/pods"], (std::set<std::string>{"get", "list", "watch", "patch"}));
  EXPECT_EQ(verbs["scheduling.run.ai/queues/status"], std::set<std::string>{"patch"});
  EXPECT_EQ(verbs["scheduling.run.ai/podgroups/status"], std::set<std::string>{"patch"});
  EXPECT_EQ(verbs["scheduling.run.ai/podgroups"],
            (std::set<std::string>{"get", "list", "watch", "patch"}));
  EXPECT_EQ(verbs["policy/poddisruptionbudgets"], (std::set<std::string>{"get", "list", "watch"}));
  // Only the ConfigMaps of fractional pods (its own configuration is a mounted file).
  EXPECT_EQ(verbs["/configmaps"], (std::set<std::string>{"create", "patch", "delete"}));
  EXPECT_EQ(verbs["events.k8s.io/events"], (std::set<std::string>{"create", "patch"}));
  EXPECT_EQ(verbs.count("coordination.k8s.io/leases"), 0u) << "leases belong in the Role";
  for (const auto& [resource, granted] : verbs) {
    EXPECT_EQ(granted.count("*"), 0u) << resource;
    if (resource != "/configmaps") {
      EXPECT_EQ(granted.count("delete"), 0u) << resource;
    }
  }
  // The reservation pods: created and deleted by the scheduler in their own namespace only.
  nlohmann::json reservations =
      GetJson(*admin, kRoles, "quotient-resource-reservation", kRelease + "-reservations");
  EXPECT_EQ(reservations["rules"][0]["verbs"],
            nlohmann::json({"get", "list", "watch", "create", "delete"}));
  GetJson(*admin, kServiceAccounts, "quotient-resource-reservation", kRelease + "-gpu-reservation");

  // The webhook: both configurations call the Service with the CA of the chart's Secret, fail
  // open, and leave the release's and the system namespaces alone.
  const std::string webhook = kRelease + "-webhook";
  nlohmann::json secret = GetJson(*admin, kSecrets, ns, webhook + "-tls");
  const std::string ca = secret["data"].value("ca.crt", "");
  EXPECT_FALSE(ca.empty());
  EXPECT_FALSE(secret["data"].value("tls.key", "").empty());
  for (const Resource& kind : {kMutatingConfigurations, kValidatingConfigurations}) {
    nlohmann::json configuration = GetJson(*admin, kind, "", webhook);
    const nlohmann::json& hook = configuration["webhooks"][0];
    EXPECT_EQ(hook["clientConfig"]["caBundle"], ca) << kind.plural;
    EXPECT_EQ(hook["clientConfig"]["service"]["name"], webhook);
    EXPECT_EQ(hook["clientConfig"]["service"]["namespace"], ns);
    EXPECT_EQ(hook["failurePolicy"], "Ignore");
    EXPECT_EQ(hook["timeoutSeconds"], 5);
    const nlohmann::json excluded = hook["namespaceSelector"]["matchExpressions"][0]["values"];
    EXPECT_NE(std::find(excluded.begin(), excluded.end(), ns), excluded.end());
    EXPECT_NE(std::find(excluded.begin(), excluded.end(), "kube-system"), excluded.end());
  }
  EXPECT_EQ(GetJson(*admin, kMutatingConfigurations, "",
                    webhook)["webhooks"][0]["clientConfig"]["service"]["path"],
            "/mutate-pods");
  // An upgrade keeps the CA (the chart looks its Secret up), so pods created during it are
  // still reviewed.
  CommandResult upgrade = Helm({"upgrade", kRelease, QUOTIENT_CHART_DIR, "-n", ns, "--kubeconfig",
                                Harness().admin_kubeconfig(), "--reuse-values", "--wait=false"});
  ASSERT_EQ(upgrade.exit_code, 0) << upgrade.output;
  EXPECT_EQ(GetJson(*admin, kSecrets, ns, webhook + "-tls")["data"].value("ca.crt", ""), ca);
  EXPECT_EQ(GetJson(*admin, kValidatingConfigurations, "",
                    webhook)["webhooks"][0]["clientConfig"]["caBundle"],
            ca);
  // The pod grouper: its own Deployment and ServiceAccount, `quotient podgrouper` for our
  // scheduler name, and a ClusterRole that writes PodGroups and pod labels and reads owners.
  nlohmann::json grouper = GetJson(*admin, kDeployments, ns, kRelease + "-podgrouper");
  nlohmann::json grouper_pod = grouper["spec"]["template"]["spec"];
  EXPECT_EQ(grouper_pod["serviceAccountName"], kRelease + "-podgrouper");
  std::vector<std::string> grouper_args =
      grouper_pod["containers"][0]["args"].get<std::vector<std::string>>();
  ASSERT_FALSE(grouper_args.empty());
  EXPECT_EQ(grouper_args[0], "podgrouper");
  EXPECT_NE(std::find(grouper_args.begin(), grouper_args.end(), "--scheduler-name=quotient"),
            grouper_args.end());
  GetJson(*admin, kServiceAccounts, ns, kRelease + "-podgrouper");
  nlohmann::json grouper_role =
      GetJson(*admin, kubeclient::resources::ClusterRoles(), "", kRelease + "-podgrouper");
  std::map<std::string, std::set<std::string>> grouper_verbs;
  for (const auto& rule : grouper_role["rules"]) {
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const auto& verb : rule["verbs"]) {
          grouper_verbs[group.get<std::string>() + "/" + resource.get<std::string>()].insert(verb);
        }
      }
    }
  }
  EXPECT_EQ(grouper_verbs["/pods"], (std::set<std::string>{"get", "list", "watch", "patch"}));
  EXPECT_EQ(grouper_verbs["scheduling.run.ai/podgroups"],
            (std::set<std::string>{"get", "list", "watch", "create", "patch"}));
  for (const char* owner :
       {"apps/deployments", "batch/jobs", "kubeflow.org/pytorchjobs", "ray.io/rayclusters",
        "jobset.x-k8s.io/jobsets", "leaderworkerset.x-k8s.io/leaderworkersets",
        "serving.knative.dev/revisions", "argoproj.io/workflows"}) {
    EXPECT_EQ(grouper_verbs[owner], std::set<std::string>{"get"}) << owner;
  }
  for (const auto& [resource, granted] : grouper_verbs) {
    EXPECT_EQ(granted.count("*"), 0u) << resource;
    EXPECT_EQ(granted.count("delete"), 0u) << resource;
  }
  nlohmann::json binding =
      GetJson(*admin, kubeclient::resources::ClusterRoleBindings(), "", kRelease);
  EXPECT_EQ(binding["roleRef"]["name"], kRelease);
  EXPECT_EQ(binding["subjects"][0]["name"], kRelease);
  EXPECT_EQ(binding["subjects"][0]["namespace"], ns);
  nlohmann::json lease_role = GetJson(*admin, kRoles, ns, kRelease + "-leader-election");
  EXPECT_EQ(lease_role["rules"][0]["resources"][0], "leases");
  GetJson(*admin, kRoleBindings, ns, kRelease + "-leader-election");

  // The configuration in KAI's format.
  nlohmann::json config =
      GetJson(*admin, kubeclient::resources::ConfigMaps(), ns, kRelease + "-config");
  std::string config_yaml = config["data"].value("config.yaml", "");
  EXPECT_NE(config_yaml.find(
                R"(actions: "allocate, consolidation, reclaim, preempt, stalegangeviction")"),
            std::string::npos)
      << config_yaml;
  EXPECT_NE(config_yaml.find("name: nodeplacement"), std::string::npos) << config_yaml;

  nlohmann::json service = GetJson(*admin, kServices, ns, kRelease);
  EXPECT_EQ(service["spec"]["ports"][0]["name"], "metrics");
  EXPECT_EQ(service["spec"]["ports"][0]["port"], 8080);

  // The Deployment: what --set asked, the flags, the hardening, the probes, the mounted config.
  nlohmann::json deployment = GetJson(*admin, kDeployments, ns, kRelease);
  EXPECT_EQ(deployment["spec"]["replicas"], 0);
  nlohmann::json pod = deployment["spec"]["template"]["spec"];
  // No schedulerName in the chart: the API server's default, the cluster's own scheduler.
  EXPECT_EQ(pod["schedulerName"], "default-scheduler");
  EXPECT_EQ(pod["serviceAccountName"], kRelease);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  EXPECT_EQ(pod["securityContext"]["runAsUser"], 10000);
  nlohmann::json container = pod["containers"][0];
  EXPECT_EQ(container["image"], "quotient:0.1.0");
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"][0], "ALL");
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(container["resources"]["requests"]["cpu"], "250m");
  EXPECT_EQ(container["resources"]["limits"]["cpu"], "700m");
  EXPECT_EQ(container["resources"]["limits"]["memory"], "512Mi");
  std::vector<std::string> args = container["args"].get<std::vector<std::string>>();
  for (const std::string& flag : std::vector<std::string>{
           "--scheduler-name=quotient", "--scheduler-conf=/etc/quotient/config.yaml",
           "--schedule-period=1s", "--leader-elect", "--leader-elect-namespace=" + ns,
           "--nodepool-label-key=kai.scheduler/node-pool", "--metrics-namespace",
           "--partition-label-value", "--listen-address=:8080", "--log-format=json"}) {
    EXPECT_NE(std::find(args.begin(), args.end(), flag), args.end()) << flag;
  }
  EXPECT_EQ(container["volumeMounts"][0]["mountPath"], "/etc/quotient");
  // The pod grouper is deployed, so pods a controller owns wait for its PodGroups.
  EXPECT_NE(std::find(args.begin(), args.end(), "--wait-for-pod-grouper"), args.end());

  // KAI's PriorityClasses: below 100 preemptible, none the cluster default.
  for (const auto& [name, value] : std::map<std::string, int>{
           {"train", 50}, {"build-preemptible", 75}, {"build", 100}, {"inference", 125}}) {
    nlohmann::json pc = GetJson(*admin, kPriorityClasses, "", name);
    EXPECT_EQ(pc["value"], value) << name;
    EXPECT_EQ(pc.value("globalDefault", false), false) << name;
  }
  // KAI's default queues: default-parent-queue -> default-queue, quota 0, no limit, weight 1.
  nlohmann::json parent =
      GetJson(*admin, kubeclient::resources::Queues(), "", "default-parent-queue");
  EXPECT_FALSE(parent["spec"].contains("parentQueue"));
  nlohmann::json queue = GetJson(*admin, kubeclient::resources::Queues(), "", "default-queue");
  EXPECT_EQ(queue["spec"]["parentQueue"], "default-parent-queue");
  for (const nlohmann::json* q : {&parent, &queue}) {
    for (const char* resource : {"gpu", "cpu", "memory"}) {
      const nlohmann::json& r = (*q)["spec"]["resources"][resource];
      EXPECT_EQ(r["quota"], 0) << resource;
      EXPECT_EQ(r["limit"], -1) << resource;
      EXPECT_EQ(r["overQuotaWeight"], 1) << resource;
    }
  }
}

// The node agent's DaemonSet: its host access is exactly the four paths it reads or writes, the
// three it reads mounted read-only, the flags pointing at the mounts; not privileged, every
// capability dropped but SYSLOG; NVML asked of the NVIDIA runtime; on every GPU node, whatever
// its taints. Its ClusterRole is what the agent does with its Node and nothing else.
TEST_F(HelmInstallTest, TheNodeAgentReadsFourHostPathsUnprivilegedWithTheRbacItUses) {
  auto admin = AdminClient();
  const std::string& ns = namespace_;
  const std::string name = kRelease + "-node-agent";
  nlohmann::json pod = GetJson(*admin, kDaemonSets, ns, name)["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], name);
  EXPECT_EQ(pod["priorityClassName"], "system-node-critical");
  EXPECT_EQ(pod["nodeSelector"], nlohmann::json({{"nvidia.com/gpu.present", "true"}}));
  EXPECT_EQ(pod["tolerations"], nlohmann::json::parse(R"([{"operator":"Exists"}])"));
  EXPECT_FALSE(pod.value("hostPID", false));
  EXPECT_FALSE(pod.value("hostNetwork", false));
  EXPECT_FALSE(pod.value("hostIPC", false));

  // Volume name -> {host path, type}: the four, and nothing else (no policy by default).
  std::map<std::string, std::pair<std::string, std::string>> host_paths;
  for (const auto& volume : pod["volumes"]) {
    ASSERT_TRUE(volume.contains("hostPath")) << volume.dump();
    host_paths[volume["name"]] = {volume["hostPath"]["path"], volume["hostPath"].value("type", "")};
  }
  std::map<std::string, std::string> by_path;  // host path -> volume name
  for (const auto& [volume, path] : host_paths) by_path[path.first] = volume;
  const std::map<std::string, std::string> expected_types = {
      {"/dev/kmsg", "CharDevice"},
      {"/sys", "Directory"},
      {"/proc/sys/kernel/random/boot_id", "File"},
      {"/var/lib/quotient/node-agent", "DirectoryOrCreate"}};
  ASSERT_EQ(host_paths.size(), 4u);
  for (const auto& [path, type] : expected_types) {
    ASSERT_EQ(by_path.count(path), 1u) << path;
    EXPECT_EQ(host_paths[by_path[path]].second, type) << path;
  }

  ASSERT_EQ(pod["containers"].size(), 1u);
  const nlohmann::json& container = pod["containers"][0];
  std::map<std::string, std::string> mounted_at;  // host path -> mount path
  for (const auto& mount : container["volumeMounts"]) {
    const std::string& path = host_paths[mount["name"]].first;
    mounted_at[path] = mount["mountPath"];
    const bool writable = path == "/var/lib/quotient/node-agent";
    EXPECT_EQ(mount.value("readOnly", false), !writable) << path;
  }
  EXPECT_EQ(mounted_at.size(), 4u);
  const auto args = container["args"].get<std::vector<std::string>>();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "node-agent");
  for (const std::string& flag : std::vector<std::string>{
           "--kmsg=" + mounted_at["/dev/kmsg"], "--sysfs-root=" + mounted_at["/sys"],
           "--boot-id-path=" + mounted_at["/proc/sys/kernel/random/boot_id"],
           "--state-file=" + mounted_at["/var/lib/quotient/node-agent"] + "/state.json",
           std::string("--poll-interval=30s"), std::string("--nvml-deadline=5s"),
           std::string("--log-format=json")}) {
    EXPECT_TRUE(Contains(args, flag)) << flag << " in " << container["args"].dump();
  }

  std::map<std::string, nlohmann::json> env;
  for (const auto& e : container["env"]) env[e["name"]] = e;
  EXPECT_EQ(env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"], "spec.nodeName");
  EXPECT_EQ(env["NVIDIA_VISIBLE_DEVICES"]["value"], "all");
  EXPECT_EQ(env["NVIDIA_DRIVER_CAPABILITIES"]["value"], "utility");

  const nlohmann::json& security = container["securityContext"];
  EXPECT_FALSE(security.value("privileged", false));
  EXPECT_EQ(security["allowPrivilegeEscalation"], false);
  EXPECT_EQ(security["readOnlyRootFilesystem"], true);
  EXPECT_EQ(security["runAsUser"], 0);
  EXPECT_EQ(security["capabilities"]["drop"], nlohmann::json({"ALL"}));
  EXPECT_EQ(security["capabilities"]["add"], nlohmann::json({"SYSLOG"}));

  // Get its Node, patch its annotation and its conditions, write Events: nothing more.
  const auto verbs = RuleVerbs(GetJson(*admin, kubeclient::resources::ClusterRoles(), "", name));
  const std::map<std::string, Verbs> expected = {{"/nodes", {"get", "patch"}},
                                                 {"/nodes/status", {"patch"}},
                                                 {"events.k8s.io/events", {"create", "patch"}}};
  EXPECT_EQ(verbs, expected);
  nlohmann::json binding = GetJson(*admin, kubeclient::resources::ClusterRoleBindings(), "", name);
  EXPECT_EQ(binding["roleRef"]["name"], name);
  EXPECT_EQ(binding["subjects"][0]["name"], name);
  EXPECT_EQ(binding["subjects"][0]["namespace"], ns);
  GetJson(*admin, kServiceAccounts, ns, name);
}

// The remediator: its ConfigMap carries the values given at install; its Deployment runs the
// chart's flags with the config mounted where --config points; leader election always on; its
// RBAC is the least it needs, split between the cluster and the release namespace; the step pods'
// ServiceAccount is bound to nothing and mounts no token.
TEST_F(HelmInstallTest, TheRemediatorRunsItsConfigWithLeastPrivilege) {
  auto admin = AdminClient();
  const std::string& ns = namespace_;
  const std::string name = kRelease + "-remediator";
  const std::string step_account = kRelease + "-remediation-step";

  // remediator.config.rails.maxPerDomain=3 from the install's --set, as YAML the remediator reads.
  const std::string config =
      GetJson(*admin, kubeclient::resources::ConfigMaps(), ns, name)["data"].value(
          "remediator.yaml", "");
  EXPECT_EQ(config, "rails:\n  maxPerDomain: 3\n");

  nlohmann::json deployment = GetJson(*admin, kDeployments, ns, name);
  EXPECT_EQ(deployment["spec"]["replicas"], 0);  // as the install set it
  nlohmann::json pod = deployment["spec"]["template"]["spec"];
  EXPECT_EQ(pod["serviceAccountName"], name);
  EXPECT_EQ(pod["securityContext"]["runAsNonRoot"], true);
  ASSERT_EQ(pod["containers"].size(), 1u);
  const nlohmann::json& container = pod["containers"][0];
  const auto args = container["args"].get<std::vector<std::string>>();
  ASSERT_FALSE(args.empty());
  EXPECT_EQ(args[0], "remediator");
  for (const std::string& flag : std::vector<std::string>{
           "--config=/etc/quotient/remediator/remediator.yaml", "--namespace=" + ns,
           "--step-image=quotient:0.1.0", "--step-service-account=" + step_account,
           std::string("--leader-elect"), "--leader-elect-namespace=" + ns, "--lease-name=" + name,
           std::string("--listen-address=:8080"), std::string("--log-format=json")}) {
    EXPECT_TRUE(Contains(args, flag)) << flag << " in " << container["args"].dump();
  }
  EXPECT_FALSE(Contains(args, "--dry-run"));
  // --config names the file of the mounted ConfigMap.
  ASSERT_EQ(pod["volumes"].size(), 1u);
  EXPECT_EQ(pod["volumes"][0]["configMap"]["name"], name);
  EXPECT_EQ(container["volumeMounts"][0]["name"], pod["volumes"][0]["name"]);
  EXPECT_EQ(container["volumeMounts"][0]["mountPath"], "/etc/quotient/remediator");
  EXPECT_EQ(container["env"][0]["name"], "POD_NAMESPACE");
  EXPECT_EQ(container["env"][0]["valueFrom"]["fieldRef"]["fieldPath"], "metadata.namespace");
  EXPECT_EQ(container["livenessProbe"]["httpGet"]["path"], "/healthz");
  EXPECT_EQ(container["readinessProbe"]["httpGet"]["path"], "/readyz");
  EXPECT_EQ(container["ports"][0]["containerPort"], 8080);
  EXPECT_EQ(container["securityContext"]["readOnlyRootFilesystem"], true);
  EXPECT_EQ(container["securityContext"]["allowPrivilegeEscalation"], false);
  EXPECT_EQ(container["securityContext"]["capabilities"]["drop"], nlohmann::json({"ALL"}));

  // Across the cluster: nodes, the pods it drains, Events. No Secrets, ConfigMaps, Jobs or
  // Leases outside the release namespace.
  const auto cluster = RuleVerbs(GetJson(*admin, kubeclient::resources::ClusterRoles(), "", name));
  const std::map<std::string, Verbs> expected_cluster = {
      {"/nodes", {"get", "list", "watch", "patch", "update"}},
      {"/pods", {"get", "list", "watch", "patch", "delete"}},
      {"/pods/eviction", {"create"}},
      {"policy/poddisruptionbudgets", {"get", "list", "watch"}},
      {"scheduling.run.ai/podgroups", {"patch"}},
      {"events.k8s.io/events", {"create", "patch"}}};
  EXPECT_EQ(cluster, expected_cluster);
  // In the release namespace: its step pods and Jobs, incident records, its Lease.
  const auto local = RuleVerbs(GetJson(*admin, kRoles, ns, name));
  const std::map<std::string, Verbs> expected_local = {
      {"/pods", {"create", "delete", "get", "list", "watch"}},
      {"batch/jobs", {"create", "delete", "get", "list", "watch"}},
      {"/configmaps", {"get", "list", "watch", "create", "update", "patch"}},
      {"coordination.k8s.io/leases", {"get", "create", "update"}}};
  EXPECT_EQ(local, expected_local);
  nlohmann::json binding = GetJson(*admin, kRoleBindings, ns, name);
  EXPECT_EQ(binding["roleRef"]["kind"], "Role");
  EXPECT_EQ(binding["subjects"][0]["name"], name);
  nlohmann::json cluster_binding =
      GetJson(*admin, kubeclient::resources::ClusterRoleBindings(), "", name);
  EXPECT_EQ(cluster_binding["subjects"][0]["name"], name);
  EXPECT_EQ(cluster_binding["subjects"][0]["namespace"], ns);

  // The step pods' identity: no token, and no binding anywhere names it.
  EXPECT_EQ(GetJson(*admin, kServiceAccounts, ns, step_account)["automountServiceAccountToken"],
            false);
  for (const auto& [resource, where] : std::vector<std::pair<Resource, std::string>>{
           {kRoleBindings, ns}, {kubeclient::resources::ClusterRoleBindings(), ""}}) {
    auto bindings = admin->List(resource, where, {});
    ASSERT_TRUE(bindings.ok()) << bindings.error().Describe();
    for (const auto& item : bindings->items) {
      EXPECT_EQ(item.json.find("\"" + step_account + "\""), std::string::npos) << item.json;
    }
  }
}

// `quotient scheduler --help`: whether the binary has flag `name` ("--x"), for the Deployment's
// flags that the binary may not have yet.
bool BinaryHasFlag(const std::string& help, const std::string& name) {
  for (size_t at = help.find(name); at != std::string::npos; at = help.find(name, at + 1)) {
    char after = at + name.size() < help.size() ? help[at + name.size()] : '\n';
    if (after == ' ' || after == '\n' || after == ',' || after == '=') return true;
  }
  return false;
}

// The Deployment's container args as the scheduler binary here runs them: the configuration
// file and listen address replaced by local ones, flags the binary does not know yet left out
// (named in `skipped`).
std::vector<std::string> LocalArgs(const std::vector<std::string>& deployment_args,
                                   const std::string& config_file,
                                   const std::string& listen_address, const std::string& help,
                                   std::vector<std::string>& skipped) {
  std::vector<std::string> out;
  for (size_t i = 0; i < deployment_args.size(); ++i) {
    std::string arg = deployment_args[i];
    if (arg.rfind("--", 0) != 0) {
      out.push_back(arg);  // the subcommand
      continue;
    }
    std::string name = arg.substr(0, arg.find('='));
    // "--flag value": the next argument is the value.
    bool separate_value = arg.find('=') == std::string::npos && i + 1 < deployment_args.size() &&
                          deployment_args[i + 1].rfind("--", 0) != 0;
    if (!BinaryHasFlag(help, name)) {
      skipped.push_back(name);
      if (separate_value) ++i;
      continue;
    }
    if (name == "--scheduler-conf") arg = "--scheduler-conf=" + config_file;
    if (name == "--listen-address") arg = "--listen-address=" + listen_address;
    out.push_back(arg);
    if (separate_value) out.push_back(deployment_args[++i]);
  }
  return out;
}

// `count` distinct ports free on 127.0.0.1 now (held together while the kernel picks them).
std::vector<int> FreePorts(int count) {
  std::vector<int> ports;
  std::vector<int> sockets;
  for (int i = 0; i < count; ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      ADD_FAILURE() << "no free port";
    }
    ports.push_back(ntohs(address.sin_port));
    sockets.push_back(fd);
  }
  for (int fd : sockets) close(fd);
  return ports;
}

// GET http://127.0.0.1:<port><path>: {status code, body}; {0, ""} when nothing answers.
std::pair<int, std::string> HttpGet(int port, const std::string& path) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return {0, ""};
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::string response;
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    std::string request = "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n";
    if (write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
      std::array<char, 4096> buffer{};
      for (ssize_t n; (n = read(fd, buffer.data(), buffer.size())) > 0;) {
        response.append(buffer.data(), static_cast<size_t>(n));
      }
    }
  }
  close(fd);
  // "HTTP/1.x NNN ...\r\n...\r\n\r\nbody"
  if (response.size() < 12 || response.rfind("HTTP/", 0) != 0) return {0, ""};
  size_t body = response.find("\r\n\r\n");
  return {std::atoi(response.substr(9, 3).c_str()),
          body == std::string::npos ? "" : response.substr(body + 4)};
}

std::string GpuPod(const std::string& name, int gpus) {
  nlohmann::json pod =
      nlohmann::json::parse(PodJson(name, R"({"kai.scheduler/queue":"default-queue"})"));
  pod["spec"]["schedulerName"] = kSchedulerName;
  pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  return pod.dump();
}

TEST_F(HelmInstallTest, ItsServiceAccountSchedulesWithItsConfigAndFlagsAndNoMore) {
  auto admin = AdminClient();
  const std::string& ns = namespace_;
  const std::string dir = TestDir();

  // A token for the chart's ServiceAccount, and a kubeconfig with nothing else in it.
  auto token_response = admin->Send(
      {"POST", kServiceAccounts.Path(ns, kRelease, "token"),
       R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}})",
       "application/json"});
  ASSERT_TRUE(token_response.ok()) << token_response.error().Describe();
  std::string token = nlohmann::json::parse(token_response->body)["status"]["token"];
  ASSERT_FALSE(token.empty());
  kubeclient::ConnectionConfig connection = AdminConnection();
  WriteFile(dir + "/ca.crt", connection.ca_pem);
  const std::string kubeconfig = dir + "/service-account.kubeconfig";
  WriteFile(kubeconfig,
            "apiVersion: v1\nkind: Config\ncurrent-context: sa\n"
            "clusters:\n- name: harness\n  cluster:\n    server: " +
                connection.server + "\n    certificate-authority: " + dir +
                "/ca.crt\n"
                "users:\n- name: sa\n  user:\n    token: " +
                token +
                "\n"
                "contexts:\n- name: sa\n  context:\n    cluster: harness\n"
                "    user: sa\n");

  // The chart's RBAC and nothing more: no Secrets, no Leases outside the release namespace.
  Result<kubeclient::ConnectionConfig> sa_connection =
      kubeclient::LoadConnectionConfig(kubeconfig, "");
  ASSERT_TRUE(sa_connection.ok()) << sa_connection.message();
  auto as_scheduler = kubeclient::MakeClient(*sa_connection);
  EXPECT_TRUE(as_scheduler->List(Nodes(), "", {}).ok());
  EXPECT_TRUE(as_scheduler->List(kSecrets, ns, {}).Is(ApiReason::kForbidden));
  EXPECT_TRUE(
      as_scheduler->List(kubeclient::resources::Leases(), "default", {}).Is(ApiReason::kForbidden));
  EXPECT_TRUE(as_scheduler->Delete(Pods(), "default", "anything").Is(ApiReason::kForbidden));

  // The configuration the Deployment mounts, and the Deployment's own flags.
  nlohmann::json config =
      GetJson(*admin, kubeclient::resources::ConfigMaps(), ns, kRelease + "-config");
  const std::string config_file = dir + "/config.yaml";
  WriteFile(config_file, config["data"].value("config.yaml", ""));
  nlohmann::json deployment = GetJson(*admin, kDeployments, ns, kRelease);
  auto deployment_args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                             .get<std::vector<std::string>>();
  CommandResult help = RunCommand({QUOTIENT_BINARY, "scheduler", "--help"});
  ASSERT_EQ(help.exit_code, 0) << help.output;
  // Two replicas, as the Deployment runs them: each its own ops port.
  const std::vector<int> ports = FreePorts(2);
  std::vector<std::string> skipped;
  auto replica_args = [&](int port) {
    skipped.clear();
    std::vector<std::string> args = LocalArgs(
        deployment_args, config_file, "127.0.0.1:" + std::to_string(port), help.output, skipped);
    args.insert(args.begin(), {QUOTIENT_BINARY});
    args.insert(args.begin() + 2, {"--kubeconfig", kubeconfig});
    return args;
  };
  std::vector<std::string> leader_args = replica_args(ports[0]);
  std::vector<std::string> standby_args = replica_args(ports[1]);
  if (!skipped.empty()) {
    std::string names;
    for (const std::string& s : skipped) names += " " + s;
    std::printf("flags of the chart's Deployment that this binary does not have yet:%s\n",
                names.c_str());
  }
  const bool serves_probes =
      std::find(skipped.begin(), skipped.end(), "--listen-address") == skipped.end();
  const std::string log = Harness().data_dir() + "/scheduler-helm.log";
  const std::string standby_log = Harness().data_dir() + "/scheduler-helm-standby.log";
  auto read_text = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  auto log_text = [&] { return read_text(log); };

  // A fake 8-GPU node, and a namespace for the workload.
  const std::string node = "helm-gpu-1";
  ASSERT_TRUE(admin->Create(Nodes(), "", FakeNodeJson(node)).ok());
  ASSERT_TRUE(WaitFor(
      [&] {
        auto n = admin->Get(Nodes(), "", node);
        return n.ok() && n->json.find(R"("type":"Ready","status":"True")") != std::string::npos;
      },
      std::chrono::seconds(30)));
  const std::string work = CreateNamespace(*admin, "helm-work");

  {
    ChildProcess scheduler(leader_args, false, log);
    ASSERT_TRUE(scheduler.started());
    // Leader election on the chart's Lease, with the chart's Role.
    EXPECT_TRUE(WaitFor([&] { return log_text().find("leading") != std::string::npos; },
                        std::chrono::seconds(30)))
        << log_text();
    // The second replica stands by, and is ready: the chart's RollingUpdate relies on it.
    ChildProcess standby(standby_args, false, standby_log);
    ASSERT_TRUE(standby.started());
    if (serves_probes) {
      // The probes and the Service's port, as the Deployment points them.
      EXPECT_TRUE(WaitFor([&] { return HttpGet(ports[0], "/healthz").first == 200; },
                          std::chrono::seconds(30)));
      EXPECT_TRUE(WaitFor([&] { return HttpGet(ports[0], "/readyz").first == 200; },
                          std::chrono::seconds(30)))
          << HttpGet(ports[0], "/readyz").second;
      EXPECT_TRUE(WaitFor([&] { return HttpGet(ports[1], "/readyz").first == 200; },
                          std::chrono::seconds(30)))
          << HttpGet(ports[1], "/readyz").second << read_text(standby_log);
      auto [code, metrics] = HttpGet(ports[0], "/metrics");
      EXPECT_EQ(code, 200);
      EXPECT_NE(metrics.find("quotient_"), std::string::npos) << metrics.substr(0, 2000);
    }
    // default-queue has no quota but no limit either: an idle cluster lends it a GPU.
    ASSERT_TRUE(admin->Create(Pods(), work, GpuPod("first", 1)).ok());
    // Nine GPUs fit on no node: pending, and the pod says why.
    ASSERT_TRUE(admin->Create(Pods(), work, GpuPod("too-big", 9)).ok());
    std::string node_name;
    EXPECT_TRUE(WaitFor(
        [&] {
          node_name = JsonField(admin->Get(Pods(), work, "first")->json, "spec.nodeName");
          return !node_name.empty();
        },
        std::chrono::seconds(60)))
        << log_text();
    EXPECT_EQ(node_name, node);
    std::string condition;
    EXPECT_TRUE(WaitFor(
        [&] {
          nlohmann::json pod = nlohmann::json::parse(admin->Get(Pods(), work, "too-big")->json);
          for (const auto& c : pod["status"].value("conditions", nlohmann::json::array())) {
            if (c["type"] == "PodScheduled") condition = c.dump();
          }
          return condition.find(R"("reason":"Unschedulable")") != std::string::npos;
        },
        std::chrono::seconds(30)))
        << condition << "\n"
        << log_text();
    // The queue's status, written through queues/status.
    std::string queue_status;
    EXPECT_TRUE(WaitFor(
        [&] {
          nlohmann::json q =
              GetJson(*admin, kubeclient::resources::Queues(), "", "default-queue")["status"];
          queue_status = q.dump();
          return q.contains("allocated") && q["allocated"].value("nvidia.com/gpu", "") == "1";
        },
        std::chrono::seconds(30)))
        << queue_status;
    // A Scheduled event, written through events.k8s.io.
    EXPECT_TRUE(WaitFor(
        [&] {
          auto events = admin->List(kubeclient::resources::Events(), work, {});
          if (!events.ok()) return false;
          for (const auto& e : events->items) {
            if (JsonField(e.json, "reason") == "Scheduled" &&
                JsonField(e.json, "regarding.name") == "first") {
              return true;
            }
          }
          return false;
        },
        std::chrono::seconds(30)));
    EXPECT_EQ(read_text(standby_log).find("leading"), std::string::npos)
        << "two leaders: " << read_text(standby_log);
    standby.Stop(SIGTERM);
    scheduler.Stop(SIGTERM);
  }
  // Nothing either replica asked for was refused.
  std::string all = log_text() + read_text(standby_log);
  EXPECT_EQ(all.find("Forbidden"), std::string::npos) << all;
  EXPECT_EQ(all.find("forbidden"), std::string::npos) << all;

  EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", work).ok());
  EXPECT_TRUE(admin->Delete(Nodes(), "", node).ok());
}

// A kubeconfig at `path` whose only credential is a token of ServiceAccount `ns`/`account`: what
// a pod running as it may do, and nothing more.
void WriteServiceAccountKubeconfig(kubeclient::Client& admin, const std::string& ns,
                                   const std::string& account, const std::string& path) {
  auto response = admin.Send(
      {"POST", kServiceAccounts.Path(ns, account, "token"),
       R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{"expirationSeconds":3600}})",
       "application/json"});
  ASSERT_TRUE(response.ok()) << response.error().Describe();
  const std::string token = nlohmann::json::parse(response->body)["status"]["token"];
  ASSERT_FALSE(token.empty());
  kubeclient::ConnectionConfig connection = AdminConnection();
  const std::string ca = path + ".ca.crt";
  WriteFile(ca, connection.ca_pem);
  WriteFile(path,
            "apiVersion: v1\nkind: Config\ncurrent-context: sa\nclusters:\n- name: harness\n"
            "  cluster:\n    server: " +
                connection.server + "\n    certificate-authority: " + ca +
                "\nusers:\n- name: sa\n  user:\n    token: " + token +
                "\ncontexts:\n- name: sa\n  context:\n    cluster: harness\n    user: sa\n");
}

// A client with the credentials of that kubeconfig.
std::unique_ptr<kubeclient::Client> ClientOf(const std::string& kubeconfig) {
  Result<kubeclient::ConnectionConfig> connection =
      kubeclient::LoadConnectionConfig(kubeconfig, "");
  EXPECT_TRUE(connection.ok()) << connection.message();
  return connection.ok() ? kubeclient::MakeClient(*connection) : nullptr;
}

// A workload's container args as run here: every "--name=value" whose name is in `local` gets
// that value instead (a host path or a port of this machine); the rest as they are.
std::vector<std::string> Localized(const std::vector<std::string>& args,
                                   const std::map<std::string, std::string>& local) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    const std::string name = arg.substr(0, arg.find('='));
    auto it = local.find(name);
    out.push_back(it == local.end() ? arg : name + "=" + it->second);
  }
  return out;
}

// The agent's and the remediator's ServiceAccounts are enough for their work, and refused more:
// `quotient node-agent`, with the DaemonSet's flags (host paths replaced by files of the test),
// the fake NVML and a token of the chart's agent ServiceAccount, publishes its conditions and a
// fatal XID on a fake node; `quotient remediator`, with the Deployment's flags, the chart's
// ConfigMap and a token of its ServiceAccount, leads, cordons and taints that node, evicts its
// pod and starts the first repair step as a pod of the step ServiceAccount, writing its record,
// the incident record and Events. Neither log shows a refusal.
TEST_F(HelmInstallTest, TheAgentAndTheRemediatorDoTheirWorkAsTheChartsServiceAccounts) {
  auto admin = AdminClient();
  const std::string& ns = namespace_;
  const std::string dir = TestDir();
  const std::string node = "helm-remediate-1";
  ASSERT_TRUE(admin->Create(Nodes(), "", FakeNodeJson(node)).ok());
  auto read_text = [](const std::string& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  // The node, with metadata.labels, metadata.annotations, spec and status always objects.
  auto node_json = [&] {
    auto got = admin->Get(Nodes(), "", node);
    nlohmann::json n = got.ok() ? nlohmann::json::parse(got->json) : nlohmann::json::object();
    for (const char* part : {"metadata", "spec", "status"}) {
      if (!n[part].is_object()) n[part] = nlohmann::json::object();
    }
    for (const char* map : {"labels", "annotations"}) {
      if (!n["metadata"][map].is_object()) n["metadata"][map] = nlohmann::json::object();
    }
    return n;
  };
  auto condition = [&](const std::string& type) {
    for (const auto& c : node_json()["status"].value("conditions", nlohmann::json::array())) {
      if (c.value("type", "") == type) {
        return c.value("status", "") + "/" + c.value("reason", "");
      }
    }
    return std::string();
  };

  // The agent, as the DaemonSet runs it.
  const std::string agent_name = kRelease + "-node-agent";
  const std::string agent_kubeconfig = dir + "/node-agent.kubeconfig";
  WriteServiceAccountKubeconfig(*admin, ns, agent_name, agent_kubeconfig);
  const std::string host = dir + "/node-agent-host";
  std::filesystem::create_directories(host + "/sys");
  std::filesystem::create_directories(host + "/state");
  WriteFile(host + "/boot_id", "boot-1\n");
  WriteFile(host + "/kmsg", "");
  const auto daemonset_args =
      GetJson(*admin, kDaemonSets, ns,
              agent_name)["spec"]["template"]["spec"]["containers"][0]["args"]
          .get<std::vector<std::string>>();
  CommandResult agent_help = RunCommand({QUOTIENT_BINARY, "node-agent", "--help"});
  ASSERT_EQ(agent_help.exit_code, 0) << agent_help.output;
  for (const std::string& arg : daemonset_args) {
    if (arg.rfind("--", 0) == 0) {
      EXPECT_TRUE(BinaryHasFlag(agent_help.output, arg.substr(0, arg.find('=')))) << arg;
    }
  }
  std::vector<std::string> agent_args =
      Localized(daemonset_args, {{"--kmsg", host + "/kmsg"},
                                 {"--sysfs-root", host + "/sys"},
                                 {"--boot-id-path", host + "/boot_id"},
                                 {"--state-file", host + "/state/state.json"},
                                 {"--poll-interval", "1s"}});
  // The DaemonSet's environment: NODE_NAME (the downward API's spec.nodeName); NVML from the
  // fake library the NVIDIA runtime would put in its place.
  agent_args.insert(agent_args.begin(), {"/usr/bin/env", "NODE_NAME=" + node,
                                         "FAKE_NVML_UUIDS=GPU-a,GPU-b", QUOTIENT_BINARY});
  agent_args.insert(agent_args.begin() + 5,
                    {"--kubeconfig", agent_kubeconfig, "--nvml-library", QUOTIENT_FAKE_NVML});
  const std::string agent_log = Harness().data_dir() + "/node-agent-helm.log";
  const std::string remediator_log = Harness().data_dir() + "/remediator-helm.log";
  {
    ChildProcess agent(agent_args, false, agent_log);
    ASSERT_TRUE(agent.started());
    EXPECT_TRUE(WaitFor([&] { return condition("GpuXidFatal").rfind("False/", 0) == 0; },
                        std::chrono::seconds(30)))
        << condition("GpuXidFatal") << read_text(agent_log);
    EXPECT_EQ(condition("Ready").rfind("True", 0), 0u) << "the node simulator's condition";
    std::ofstream(host + "/kmsg", std::ios::app)
        << "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n";
    EXPECT_TRUE(
        WaitFor([&] { return condition("GpuXidFatal") == "True/Xid79"; }, std::chrono::seconds(30)))
        << condition("GpuXidFatal") << read_text(agent_log);
    // The annotation is patched after the conditions.
    EXPECT_TRUE(WaitFor(
        [&] {
          return node_json()["metadata"]["annotations"]
                     .value("quotient.dev/gpu-health", "")
                     .find("GPU-a") != std::string::npos;
        },
        std::chrono::seconds(10)))
        << node_json()["metadata"].dump();
    // Its own Node's writes, and nothing else.
    auto as_agent = ClientOf(agent_kubeconfig);
    ASSERT_NE(as_agent, nullptr);
    EXPECT_TRUE(as_agent->Get(Nodes(), "", node).ok());
    EXPECT_TRUE(as_agent->List(Nodes(), "", {}).Is(ApiReason::kForbidden));
    EXPECT_TRUE(as_agent->List(Pods(), ns, {}).Is(ApiReason::kForbidden));
    EXPECT_TRUE(as_agent->Get(kSecrets, ns, "anything").Is(ApiReason::kForbidden));
    EXPECT_TRUE(as_agent->Delete(Nodes(), "", node).Is(ApiReason::kForbidden));

    // The remediator, as the Deployment runs it, while the agent keeps publishing.
    const std::string name = kRelease + "-remediator";
    CommandResult help = RunCommand({QUOTIENT_BINARY, "remediator", "--help"});
    if (help.exit_code != 0) {
      agent.Stop(SIGTERM);
      EXPECT_TRUE(admin->Delete(Nodes(), "", node).ok());
      GTEST_SKIP() << "this binary has no `remediator` command yet: " << help.output;
    }
    nlohmann::json deployment = GetJson(*admin, kDeployments, ns, name);
    const auto deployment_args = deployment["spec"]["template"]["spec"]["containers"][0]["args"]
                                     .get<std::vector<std::string>>();
    for (const std::string& arg : deployment_args) {
      if (arg.rfind("--", 0) == 0) {
        EXPECT_TRUE(BinaryHasFlag(help.output, arg.substr(0, arg.find('=')))) << arg;
      }
    }
    const std::string config_file = dir + "/remediator.yaml";
    WriteFile(config_file,
              GetJson(*admin, kubeclient::resources::ConfigMaps(), ns, name)["data"].value(
                  "remediator.yaml", ""));
    const std::string kubeconfig = dir + "/remediator.kubeconfig";
    WriteServiceAccountKubeconfig(*admin, ns, name, kubeconfig);
    const int port = FreePorts(1)[0];
    std::vector<std::string> args = Localized(
        deployment_args,
        {{"--config", config_file}, {"--listen-address", "127.0.0.1:" + std::to_string(port)}});
    args.insert(args.begin(), QUOTIENT_BINARY);
    args.insert(args.begin() + 2, {"--kubeconfig", kubeconfig});

    // A pod on the node, to be drained.
    const std::string work = CreateNamespace(*admin, "helm-drain");
    nlohmann::json workload = nlohmann::json::parse(PodJson("victim"));
    workload["spec"]["nodeName"] = node;
    ASSERT_TRUE(admin->Create(Pods(), work, workload.dump()).ok());

    ChildProcess remediator(args, false, remediator_log);
    ASSERT_TRUE(remediator.started());
    EXPECT_TRUE(
        WaitFor([&] { return HttpGet(port, "/readyz").first == 200; }, std::chrono::seconds(30)))
        << read_text(remediator_log);
    // Cordoned and tainted (nodes: update).
    EXPECT_TRUE(WaitFor(
        [&] {
          nlohmann::json n = node_json();
          return n["spec"].value("unschedulable", false) &&
                 n["spec"]
                         .value("taints", nlohmann::json::array())
                         .dump()
                         .find("quotient.dev/unhealthy") != std::string::npos;
        },
        std::chrono::seconds(60)))
        << node_json()["spec"].dump() << read_text(remediator_log);
    // Drained (pods: patch; pods/eviction: create).
    EXPECT_TRUE(WaitFor(
        [&] {
          auto p = admin->Get(Pods(), work, "victim");
          return p.Is(ApiReason::kNotFound) ||
                 (p.ok() && !JsonField(p->json, "metadata.deletionTimestamp").empty());
        },
        std::chrono::seconds(60)))
        << read_text(remediator_log);
    // The first rung, a pod of the step ServiceAccount on the node (the release namespace's
    // pods: create).
    nlohmann::json step = {{"spec", nlohmann::json::object()}};
    EXPECT_TRUE(WaitFor(
        [&] {
          auto pods = admin->List(Pods(), ns, Selecting("quotient.dev/remediation-step"));
          if (!pods.ok() || pods->items.empty()) return false;
          step = nlohmann::json::parse(pods->items[0].json);
          return true;
        },
        std::chrono::seconds(60)))
        << read_text(remediator_log);
    EXPECT_EQ(step["spec"].value("serviceAccountName", ""), kRelease + "-remediation-step");
    EXPECT_EQ(step["spec"].value("nodeName", ""), node);
    // Its record on the node (nodes: patch) and the incident record (configmaps).
    EXPECT_TRUE(WaitFor(
        [&] {
          return node_json()["metadata"]["labels"].value("quotient.dev/remediation-state", "") ==
                 "remediating";
        },
        std::chrono::seconds(30)))
        << node_json()["metadata"].dump();
    auto incidents = admin->List(kubeclient::resources::ConfigMaps(), ns,
                                 Selecting("quotient.dev/remediation-incident"));
    ASSERT_TRUE(incidents.ok());
    EXPECT_FALSE(incidents->items.empty());
    // Events on the Node (events.k8s.io), in namespace default.
    EXPECT_TRUE(WaitFor(
        [&] {
          auto events = admin->List(kubeclient::resources::Events(), "default", {});
          if (!events.ok()) return false;
          for (const auto& e : events->items) {
            if (JsonField(e.json, "reportingController") == "quotient-remediator" &&
                JsonField(e.json, "regarding.name") == node) {
              return true;
            }
          }
          return false;
        },
        std::chrono::seconds(30)));
    // And nothing beyond its RBAC.
    auto as_remediator = ClientOf(kubeconfig);
    ASSERT_NE(as_remediator, nullptr);
    EXPECT_TRUE(as_remediator->List(kSecrets, ns, {}).Is(ApiReason::kForbidden));
    EXPECT_TRUE(
        as_remediator->Create(Pods(), "default", PodJson("not-here")).Is(ApiReason::kForbidden));
    EXPECT_TRUE(as_remediator->List(kubeclient::resources::Leases(), "default", {})
                    .Is(ApiReason::kForbidden));
    EXPECT_TRUE(as_remediator->List(kubeclient::resources::ConfigMaps(), "default", {})
                    .Is(ApiReason::kForbidden));
    remediator.Stop(SIGTERM);
    agent.Stop(SIGTERM);
    EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", work).ok());
  }
  const std::string logs = read_text(agent_log) + read_text(remediator_log);
  EXPECT_EQ(logs.find("Forbidden"), std::string::npos) << logs;
  EXPECT_EQ(logs.find("forbidden"), std::string::npos) << logs;
  EXPECT_TRUE(admin->Delete(Nodes(), "", node).ok());
}

}  // namespace
}  // namespace quotient::k8s_integration
