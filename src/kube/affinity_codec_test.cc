// Pod affinity decoding through DecodeManifestText, from YAML and from JSON.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/loader.h"

namespace quotient::kube {
namespace {

using core::SelectorRequirement;
using Strings = std::vector<std::string>;

LoadResult Decode(std::string_view text, std::string_view source = "pods.yaml") {
  LoadResult out;
  DecodeManifestText(text, source, out);
  return out;
}

// A pod named team-a/p whose spec is `spec` (YAML, indented by two spaces).
std::string PodYaml(std::string_view spec) {
  return "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: team-a}\nspec:\n" +
         std::string(spec);
}

const core::PodObject& OnlyPod(const LoadResult& r) {
  EXPECT_EQ(r.objects.pods.size(), 1u);
  return r.objects.pods.at(0);
}

void ExpectRequirement(const SelectorRequirement& req, std::string_view key, std::string_view op,
                       const Strings& values) {
  EXPECT_EQ(req.key, key);
  EXPECT_EQ(req.op, op);
  EXPECT_EQ(req.values, values);
}

// The pod's problems are exactly `expected` ("field: message"), each also a warning diagnostic
// naming the pod, the field and the message.
void ExpectProblems(const LoadResult& r, const Strings& expected) {
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_EQ(pod.problems, expected);
  ASSERT_EQ(r.diagnostics.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const core::Diagnostic& d = r.diagnostics[i];
    EXPECT_EQ(d.severity, core::Diagnostic::Severity::kWarning);
    EXPECT_EQ(d.object, "Pod team-a/p");
    EXPECT_EQ(d.field + ": " + d.message, expected[i]);
  }
}

constexpr std::string_view kNodeTerms =
    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms";
constexpr std::string_view kPodAffinityTerms =
    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution";
constexpr std::string_view kAntiAffinityTerms =
    "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution";

std::string Path(std::string_view prefix, std::string_view rest) {
  return std::string(prefix) + std::string(rest);
}

TEST(AffinityCodec, ReadsRequiredNodeAffinityWithEveryOperator) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: nvidia.com/gpu.product, operator: In, values: [H100, H200]}
          - {key: topology.kubernetes.io/zone, operator: NotIn, values: [us-east-1c]}
          - {key: kai.scheduler/node-pool, operator: Exists}
          - {key: maintenance, operator: DoesNotExist, values: []}
          - {key: nvidia.com/gpu.memory, operator: Gt, values: ["40000"]}
          - {key: nvidia.com/gpu.count, operator: Lt, values: ["-9"]}
        - {}
        - matchFields:
          - {key: metadata.name, operator: In, values: [node-7]}
          - {key: metadata.name, operator: NotIn, values: [node-8]}
          matchExpressions: []
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 10
        preference:
          matchExpressions: [{key: x, operator: Bogus}]
)"));
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.problems.empty());
  // The empty term matches no node and is left out; the preferred term is not read.
  const std::vector<core::NodeSelectorTerm>& terms = pod.affinity.required_node_terms;
  ASSERT_EQ(terms.size(), 2u);
  ASSERT_EQ(terms[0].match_expressions.size(), 6u);
  EXPECT_TRUE(terms[0].match_fields.empty());
  ExpectRequirement(terms[0].match_expressions[0], "nvidia.com/gpu.product", "In",
                    {"H100", "H200"});
  ExpectRequirement(terms[0].match_expressions[1], "topology.kubernetes.io/zone", "NotIn",
                    {"us-east-1c"});
  ExpectRequirement(terms[0].match_expressions[2], "kai.scheduler/node-pool", "Exists", {});
  ExpectRequirement(terms[0].match_expressions[3], "maintenance", "DoesNotExist", {});
  ExpectRequirement(terms[0].match_expressions[4], "nvidia.com/gpu.memory", "Gt", {"40000"});
  ExpectRequirement(terms[0].match_expressions[5], "nvidia.com/gpu.count", "Lt", {"-9"});
  EXPECT_TRUE(terms[1].match_expressions.empty());
  ASSERT_EQ(terms[1].match_fields.size(), 2u);
  ExpectRequirement(terms[1].match_fields[0], "metadata.name", "In", {"node-7"});
  ExpectRequirement(terms[1].match_fields[1], "metadata.name", "NotIn", {"node-8"});
  EXPECT_TRUE(pod.affinity.required_pod_affinity.empty());
  EXPECT_TRUE(pod.affinity.required_pod_anti_affinity.empty());
}

TEST(AffinityCodec, ReadsPodAffinityAndAntiAffinity) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchLabels: {app: trainer, tier: gpu}
          matchExpressions:
          - {key: job, operator: In, values: [j1, j2]}
          - {key: canary, operator: DoesNotExist}
        namespaces: [team-a, team-b]
        topologyKey: topology.kubernetes.io/zone
      - labelSelector: {}
        namespaceSelector: {}
        topologyKey: kubernetes.io/hostname
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 1
        podAffinityTerm: {topologyKey: ""}
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector:
          matchExpressions:
          - {key: app, operator: NotIn, values: [db]}
          - {key: gpu, operator: Exists}
        namespaces: [infra]
        namespaceSelector: {matchLabels: {}}
        topologyKey: kubernetes.io/hostname
      - topologyKey: kubernetes.io/hostname
)"));
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.problems.empty());
  EXPECT_TRUE(pod.affinity.required_node_terms.empty());

  const std::vector<core::PodAffinityTerm>& affinity = pod.affinity.required_pod_affinity;
  ASSERT_EQ(affinity.size(), 2u);
  EXPECT_EQ(affinity[0].selector.match_labels, (core::Labels{{"app", "trainer"}, {"tier", "gpu"}}));
  ASSERT_EQ(affinity[0].selector.match_expressions.size(), 2u);
  ExpectRequirement(affinity[0].selector.match_expressions[0], "job", "In", {"j1", "j2"});
  ExpectRequirement(affinity[0].selector.match_expressions[1], "canary", "DoesNotExist", {});
  EXPECT_EQ(affinity[0].namespaces, (Strings{"team-a", "team-b"}));
  EXPECT_FALSE(affinity[0].namespace_selector_all);
  EXPECT_EQ(affinity[0].topology_key, "topology.kubernetes.io/zone");
  // labelSelector {} matches every pod; namespaceSelector {} every namespace.
  EXPECT_TRUE(affinity[1].selector.match_labels.empty());
  EXPECT_TRUE(affinity[1].selector.match_expressions.empty());
  EXPECT_TRUE(affinity[1].namespaces.empty());
  EXPECT_TRUE(affinity[1].namespace_selector_all);
  EXPECT_EQ(affinity[1].topology_key, "kubernetes.io/hostname");

  // The anti-affinity term without a labelSelector matches no pod, so it is left out.
  const std::vector<core::PodAffinityTerm>& anti = pod.affinity.required_pod_anti_affinity;
  ASSERT_EQ(anti.size(), 1u);
  EXPECT_TRUE(anti[0].selector.match_labels.empty());
  ASSERT_EQ(anti[0].selector.match_expressions.size(), 2u);
  ExpectRequirement(anti[0].selector.match_expressions[0], "app", "NotIn", {"db"});
  ExpectRequirement(anti[0].selector.match_expressions[1], "gpu", "Exists", {});
  EXPECT_EQ(anti[0].namespaces, (Strings{"infra"}));
  EXPECT_TRUE(anti[0].namespace_selector_all);
  EXPECT_EQ(anti[0].topology_key, "kubernetes.io/hostname");
}

TEST(AffinityCodec, PodWithoutAffinityHasNone) {
  LoadResult r = Decode(PodYaml("  affinity: null\n  containers: [{name: c}]\n"));
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.affinity.required_node_terms.empty());
  EXPECT_TRUE(pod.affinity.required_pod_affinity.empty());
  EXPECT_TRUE(pod.affinity.required_pod_anti_affinity.empty());
  EXPECT_TRUE(pod.host_ports.empty());
}

TEST(AffinityCodec, ReadsAffinityFromJson) {
  LoadResult r = Decode(R"({
  "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "team-a"},
  "spec": {"affinity": {
    "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
      {"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["3"]}],
       "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]}]}]}},
    "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
      {"labelSelector": {"matchLabels": {"app": "web"}}, "namespaces": null,
       "namespaceSelector": null, "topologyKey": "kubernetes.io/hostname"}]}}}})",
                        "pods.json");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  ASSERT_EQ(pod.affinity.required_node_terms.size(), 1u);
  const core::NodeSelectorTerm& term = pod.affinity.required_node_terms[0];
  ASSERT_EQ(term.match_expressions.size(), 1u);
  ExpectRequirement(term.match_expressions[0], "gpu", "Gt", {"3"});
  ASSERT_EQ(term.match_fields.size(), 1u);
  ExpectRequirement(term.match_fields[0], "metadata.name", "In", {"n1", "n2"});
  ASSERT_EQ(pod.affinity.required_pod_anti_affinity.size(), 1u);
  const core::PodAffinityTerm& anti = pod.affinity.required_pod_anti_affinity[0];
  EXPECT_EQ(anti.selector.match_labels, (core::Labels{{"app", "web"}}));
  EXPECT_TRUE(anti.namespaces.empty());
  EXPECT_FALSE(anti.namespace_selector_all);
  EXPECT_EQ(anti.topology_key, "kubernetes.io/hostname");
}

TEST(AffinityCodec, BadNodeSelectorRequirementsAreProblems) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: a, operator: In, values: [x]}
          - {key: b, operator: Foo, values: [x]}
        - matchExpressions:
          - {key: c, operator: In}
          - {key: d, operator: Gt, values: ["4O"]}
          - {key: e, operator: Lt, values: ["1", "2"]}
          - {key: f, operator: Exists, values: [x]}
          - {operator: DoesNotExist}
        - matchFields:
          - {key: metadata.namespace, operator: In, values: [x]}
          - {key: metadata.name, operator: Exists}
        - matchExpressions:
          - {key: ok, operator: NotIn, values: [y]}
)"));
  ExpectProblems(
      r,
      {
          Path(kNodeTerms, "[0].matchExpressions[1].operator: unknown operator \"Foo\""),
          Path(kNodeTerms, "[1].matchExpressions[0].values: operator In needs at least one value"),
          Path(kNodeTerms,
               "[1].matchExpressions[1].values[0]: operator Gt needs an integer, got \"4O\""),
          Path(kNodeTerms, "[1].matchExpressions[2].values: operator Lt needs exactly one value"),
          Path(kNodeTerms, "[1].matchExpressions[3].values: operator Exists takes no values"),
          Path(kNodeTerms, "[1].matchExpressions[4].key: required, but missing"),
          Path(kNodeTerms,
               "[2].matchFields[0].key: unsupported field \"metadata.namespace\" (only "
               "metadata.name)"),
          Path(kNodeTerms,
               "[2].matchFields[1].operator: operator \"Exists\" is not supported in "
               "matchFields (In, NotIn)"),
      });
  // Terms with a bad requirement are left out; the problems keep the pod from being placed.
  const core::PodObject& pod = OnlyPod(r);
  ASSERT_EQ(pod.affinity.required_node_terms.size(), 1u);
  ExpectRequirement(pod.affinity.required_node_terms[0].match_expressions.at(0), "ok", "NotIn",
                    {"y"});
}

TEST(AffinityCodec, NodeAffinityThatNoNodeCanMatchIsAProblem) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms: [{}, {matchExpressions: []}]
)"));
  ExpectProblems(r, {Path(kNodeTerms, ": no term with a requirement, so no node can match")});
  EXPECT_TRUE(OnlyPod(r).affinity.required_node_terms.empty());
}

TEST(AffinityCodec, BadPodAffinityTermsAreProblems) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: a}}
        topologyKey: zone
      - labelSelector: {matchLabels: {app: a}}
      - labelSelector: {matchExpressions: [{key: n, operator: Gt, values: ["1"]}]}
        topologyKey: zone
      - labelSelector: {matchLabels: {app: a}}
        namespaceSelector: {matchLabels: {team: a}}
        topologyKey: zone
      - topologyKey: zone
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: b}}
        topologyKey: ""
      - labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: []}]}
        namespaces: [""]
        topologyKey: zone
)"));
  ExpectProblems(
      r, {
             Path(kPodAffinityTerms, "[1].topologyKey: required, but missing"),
             Path(kPodAffinityTerms,
                  "[2].labelSelector.matchExpressions[0].operator: operator \"Gt\" is not "
                  "supported in a label selector (In, NotIn, Exists, DoesNotExist)"),
             Path(kPodAffinityTerms,
                  "[3].namespaceSelector: namespaceSelector with labels is not supported"),
             Path(kPodAffinityTerms,
                  "[4].labelSelector: missing, so the term matches no pod and can never be "
                  "satisfied"),
             Path(kAntiAffinityTerms, "[0].topologyKey: required, but empty"),
             Path(kAntiAffinityTerms,
                  "[1].labelSelector.matchExpressions[0].values: operator NotIn needs at least "
                  "one value"),
             Path(kAntiAffinityTerms, "[1].namespaces[0]: required, but empty"),
         });
  const core::PodObject& pod = OnlyPod(r);
  ASSERT_EQ(pod.affinity.required_pod_affinity.size(), 1u);
  EXPECT_EQ(pod.affinity.required_pod_affinity[0].selector.match_labels,
            (core::Labels{{"app", "a"}}));
  EXPECT_EQ(pod.affinity.required_pod_affinity[0].topology_key, "zone");
  EXPECT_TRUE(pod.affinity.required_pod_anti_affinity.empty());
}

TEST(AffinityCodec, WrongTypesAreProblems) {
  LoadResult r = Decode(PodYaml(R"(
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions: [{key: a, operator: In, values: [1]}]
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: [x]}}
        topologyKey: zone
      - null
    podAntiAffinity: [x]
)"));
  ExpectProblems(r, {
                        Path(kNodeTerms,
                             "[0].matchExpressions[0].values[0]: expected a string, got number "
                             "(\"1\")"),
                        Path(kPodAffinityTerms,
                             "[0].labelSelector.matchLabels.app: expected a string, got list"),
                        Path(kPodAffinityTerms, "[1]: expected a map, got null"),
                        "spec.affinity.podAntiAffinity: expected a map, got list",
                    });
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.affinity.required_node_terms.empty());
  EXPECT_TRUE(pod.affinity.required_pod_affinity.empty());
}

TEST(AffinityCodec, BadAffinityFromJsonIsAProblem) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "team-a"},
    "spec": {"affinity": {
      "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["1.5"]},
                              {"key": "zone", "operator": "in", "values": ["a"]}]}]}},
      "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}}]}}}})",
                        "pods.json");
  ExpectProblems(
      r, {
             Path(kNodeTerms,
                  "[0].matchExpressions[0].values[0]: operator Gt needs an integer, got \"1.5\""),
             Path(kNodeTerms, "[0].matchExpressions[1].operator: unknown operator \"in\""),
             Path(kAntiAffinityTerms, "[0].topologyKey: required, but missing"),
         });
  EXPECT_EQ(r.diagnostics.at(0).source, "pods.json");
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.affinity.required_node_terms.empty());
  EXPECT_TRUE(pod.affinity.required_pod_anti_affinity.empty());
}

}  // namespace
}  // namespace quotient::kube
