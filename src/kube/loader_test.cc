// Document dispatch (kinds, lists, streams) and bad input, through DecodeManifestText and
// LoadManifests.
#include "kube/loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace quotient::kube {
namespace {

namespace fs = std::filesystem;
using core::Diagnostic;

LoadResult Decode(std::string_view text, std::string_view source = "in.yaml") {
  LoadResult out;
  DecodeManifestText(text, source, out);
  return out;
}

std::string AllDiagnostics(const LoadResult& r) {
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.ToString() + "\n";
  return out;
}

TEST(DecodeManifestText, MultiDocumentStreamKeepsInputOrderAndSkipsOtherKinds) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: b, namespace: ns}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm}
---
apiVersion: v1
kind: Pod
metadata: {name: a, namespace: ns}
---
apiVersion: v1
kind: Node
metadata: {name: n1}
)");
  ASSERT_EQ(r.objects.pods.size(), 2u);
  EXPECT_EQ(r.objects.pods[0].meta.name, "b");
  EXPECT_EQ(r.objects.pods[1].meta.name, "a");
  EXPECT_EQ(r.objects.nodes.size(), 1u);
  ASSERT_EQ(r.diagnostics.size(), 2u) << AllDiagnostics(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::kWarning);
  EXPECT_EQ(r.diagnostics[0].message, "skipping unsupported kind Deployment apps/v1");
  EXPECT_EQ(r.diagnostics[0].object, "Deployment ns/web");
  EXPECT_EQ(r.diagnostics[0].source, "in.yaml");
  EXPECT_EQ(r.diagnostics[1].message, "skipping unsupported kind ConfigMap v1");
  EXPECT_FALSE(r.HasErrors());
}

TEST(DecodeManifestText, KubectlJsonListWithEveryKind) {
  LoadResult r = Decode(R"({
    "apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""},
    "items": [
      {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
       "status": {"allocatable": {"cpu": "8", "nvidia.com/gpu": "4"}}},
      {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "ns"}},
      {"apiVersion": "scheduling.run.ai/v2", "kind": "Queue", "metadata": {"name": "q1"},
       "spec": {"resources": {"gpu": {"quota": 2.5}}}},
      {"apiVersion": "scheduling.run.ai/v2alpha2", "kind": "PodGroup",
       "metadata": {"name": "pg1", "namespace": "ns"}, "spec": {"minMember": 2, "queue": "q1"}},
      {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "pc"},
       "value": 100},
      {"apiVersion": "v1", "kind": "Service", "metadata": {"name": "svc", "namespace": "ns"}}
    ]})",
                        "all.json");
  EXPECT_EQ(r.objects.nodes.size(), 1u);
  EXPECT_EQ(r.objects.nodes[0].allocatable.gpu_milli, core::Quantity(4000));
  EXPECT_EQ(r.objects.pods.size(), 1u);
  ASSERT_EQ(r.objects.queues.size(), 1u);
  EXPECT_EQ(r.objects.queues[0].resources[core::ShareResource::kGpu].quota,
            core::Bound::Of(core::Quantity(2500)));
  ASSERT_EQ(r.objects.pod_groups.size(), 1u);
  EXPECT_EQ(r.objects.pod_groups[0].min_member, 2);
  ASSERT_EQ(r.objects.priority_classes.size(), 1u);
  EXPECT_EQ(r.objects.priority_classes[0].value, 100);
  ASSERT_EQ(r.diagnostics.size(), 1u) << AllDiagnostics(r);
  EXPECT_EQ(r.diagnostics[0].ToString(),
            "all.json: Service ns/svc: skipping unsupported kind Service v1");
}

TEST(DecodeManifestText, TypedListItemsInheritKindAndApiVersion) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v2
kind: QueueList
items:
- metadata: {name: q1}
  spec: {resources: {}}
- metadata: {name: q2}
  spec: {priority: 7, resources: {}}
)");
  EXPECT_TRUE(r.diagnostics.empty()) << AllDiagnostics(r);
  ASSERT_EQ(r.objects.queues.size(), 2u);
  EXPECT_EQ(r.objects.queues[1].priority, 7);
}

TEST(DecodeManifestText, WrongApiVersionIsSkippedWithWarning) {
  LoadResult r = Decode(R"(
apiVersion: scheduling.run.ai/v1
kind: Queue
metadata: {name: old}
---
kind: PodGroup
metadata: {name: no-version}
)");
  EXPECT_TRUE(r.objects.queues.empty());
  EXPECT_TRUE(r.objects.pod_groups.empty());
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].object, "Queue old");
  EXPECT_EQ(r.diagnostics[0].message,
            "skipping Queue with unsupported apiVersion \"scheduling.run.ai/v1\" (expected "
            "scheduling.run.ai/v2)");
  EXPECT_EQ(r.diagnostics[1].severity, Diagnostic::Severity::kWarning);
  EXPECT_FALSE(r.HasErrors());
}

TEST(DecodeManifestText, DocumentsThatAreNotObjectsAreSkipped) {
  LoadResult r = Decode("- a\n- b\n---\njust a string\n---\nmetadata: {name: x}\n");
  EXPECT_FALSE(r.HasErrors());
  ASSERT_EQ(r.diagnostics.size(), 3u) << AllDiagnostics(r);
  EXPECT_EQ(r.diagnostics[0].message, "document is a list, not a Kubernetes object; skipped");
  EXPECT_EQ(r.diagnostics[1].message, "document is a string, not a Kubernetes object; skipped");
  EXPECT_EQ(r.diagnostics[2].message, "document has no kind; skipped");
  EXPECT_EQ(r.diagnostics[2].object, "x");
}

TEST(DecodeManifestText, MissingNameSkipsTheObject) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {namespace: ns}
---
apiVersion: v1
kind: Node
metadata: {name: 5}
)");
  EXPECT_TRUE(r.objects.pods.empty());
  EXPECT_TRUE(r.objects.nodes.empty());
  ASSERT_EQ(r.diagnostics.size(), 2u);
  EXPECT_EQ(r.diagnostics[0].ToString(),
            "in.yaml: Pod: metadata.name is missing or not a string; object skipped");
  EXPECT_EQ(r.diagnostics[1].object, "Node");
}

TEST(DecodeManifestText, MalformedQuantityKeepsObjectWithProblem) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata: {name: train-0, namespace: team-a}
spec:
  containers:
  - name: main
    resources:
      requests: {cpu: abc, memory: 1Gi, nvidia.com/gpu: -1}
      limits: {cpu: "2"}
)",
                        "cluster.yaml");
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const core::PodObject& pod = r.objects.pods[0];
  ASSERT_EQ(pod.problems.size(), 2u);
  EXPECT_EQ(pod.problems[0],
            "spec.containers[0].resources.requests.cpu: not a quantity (expected a number) "
            "(\"abc\")");
  EXPECT_EQ(pod.problems[1],
            "spec.containers[0].resources.requests.nvidia.com/gpu: negative quantity (\"-1\")");
  // The malformed request is not replaced by the limit; the good one is still read.
  EXPECT_EQ(pod.containers[0].requests.cpu_milli, core::Quantity(0));
  EXPECT_EQ(pod.containers[0].requests.memory_bytes, core::Quantity(1073741824));
  ASSERT_EQ(r.diagnostics.size(), 2u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.severity, Diagnostic::Severity::kWarning);
  EXPECT_EQ(d.source, "cluster.yaml");
  EXPECT_EQ(d.object, "Pod team-a/train-0");
  EXPECT_EQ(d.field, "spec.containers[0].resources.requests.cpu");
  EXPECT_EQ(d.message, "not a quantity (expected a number) (\"abc\")");
}

TEST(DecodeManifestText, NonStringLabelAndAnnotationValuesAreProblems) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  labels: {version: 1.0, team: a, empty:}
  annotations: {gpu-fraction: 0.5, nested: {a: b}}
spec:
  priority: "5"
  schedulerName: [kai]
)");
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const core::PodObject& pod = r.objects.pods[0];
  EXPECT_EQ(pod.meta.labels, (core::Labels{{"empty", ""}, {"team", "a"}}));
  EXPECT_TRUE(pod.meta.annotations.empty());
  EXPECT_EQ(pod.problems,
            (std::vector<std::string>{
                "metadata.labels.version: expected a string, got number (\"1.0\")",
                "metadata.annotations.gpu-fraction: expected a string, got number (\"0.5\")",
                "metadata.annotations.nested: expected a string, got map",
                "spec.schedulerName: expected a string, got list",
                "spec.priority: expected an integer, got string (\"5\")",
            }));
  EXPECT_EQ(pod.scheduler_name, "default-scheduler");
  EXPECT_EQ(r.diagnostics.size(), 5u);
}

TEST(DecodeManifestText, BadTimestampAndPhaseAreProblems) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "creationTimestamp": "yesterday"},
    "status": {"phase": "Sleeping"}})");
  ASSERT_EQ(r.objects.pods.size(), 1u);
  EXPECT_EQ(r.objects.pods[0].problems,
            (std::vector<std::string>{
                "metadata.creationTimestamp: not an RFC 3339 timestamp (\"yesterday\")",
                "status.phase: unknown phase \"Sleeping\""}));
  EXPECT_EQ(r.objects.pods[0].phase, core::PodPhase::kUnknown);
}

TEST(DecodeManifestText, SyntaxErrorsAreErrorsNamingSourceAndLine) {
  LoadResult yaml = Decode("apiVersion: v1\nkind: Pod\nmetadata: {name: [p\n", "bad.yaml");
  ASSERT_EQ(yaml.diagnostics.size(), 1u);
  EXPECT_TRUE(yaml.HasErrors());
  EXPECT_EQ(yaml.diagnostics[0].source, "bad.yaml");
  EXPECT_EQ(yaml.diagnostics[0].message.rfind("YAML syntax error: line ", 0), 0u)
      << yaml.diagnostics[0].message;
  LoadResult json = Decode("{\"kind\": \"Pod\",, }", "bad.json");
  ASSERT_EQ(json.diagnostics.size(), 1u);
  EXPECT_TRUE(json.HasErrors());
  EXPECT_EQ(json.diagnostics[0].source, "bad.json");
  EXPECT_EQ(json.diagnostics[0].message.rfind("JSON syntax error: ", 0), 0u);
  EXPECT_TRUE(json.objects.pods.empty());
}

// A scratch directory per test, removed afterwards.
class LoadManifestsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quotient_kube_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
            std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, std::string_view text) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }
  fs::path dir_;
};

TEST_F(LoadManifestsTest, ReadsFilesDirectoriesAndStdin) {
  Write("b.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: from-b}\n");
  Write("a.json", R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "from-a"}})");
  Write("c.yml", "apiVersion: v1\nkind: Pod\nmetadata: {name: from-c}\n");
  Write("notes.txt", "not a manifest");
  fs::create_directories(dir_ / "sub.yaml");  // directories inside are not read
  Write("sub.yaml/d.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: from-d}\n");
  std::istringstream in("apiVersion: v1\nkind: Node\nmetadata: {name: stdin-node}\n");
  LoadResult r = LoadManifests({dir_.string(), "-"}, in);
  EXPECT_TRUE(r.diagnostics.empty()) << AllDiagnostics(r);
  ASSERT_EQ(r.objects.pods.size(), 3u);
  EXPECT_EQ(r.objects.pods[0].meta.name, "from-a");  // sorted by file name
  EXPECT_EQ(r.objects.pods[0].meta.source, (dir_ / "a.json").string());
  EXPECT_EQ(r.objects.pods[1].meta.name, "from-b");
  EXPECT_EQ(r.objects.pods[2].meta.name, "from-c");
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  EXPECT_EQ(r.objects.nodes[0].meta.source, "-");
}

TEST_F(LoadManifestsTest, DirectoryWithMixedGoodAndBadFiles) {
  Write("1-good.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n");
  const std::string bad_json = Write("2-bad.json", "{\"kind\": ");
  const std::string bad_yaml = Write("3-bad.yaml", "kind: Node\n  metadata: x\n");
  Write("4-other.yml", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n");
  std::istringstream in;
  LoadResult r = LoadManifests({dir_.string()}, in);
  EXPECT_EQ(r.objects.nodes.size(), 1u);
  EXPECT_TRUE(r.HasErrors());
  ASSERT_EQ(r.diagnostics.size(), 3u) << AllDiagnostics(r);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::kError);
  EXPECT_EQ(r.diagnostics[0].source, bad_json);
  EXPECT_EQ(r.diagnostics[1].severity, Diagnostic::Severity::kError);
  EXPECT_EQ(r.diagnostics[1].source, bad_yaml);
  EXPECT_NE(r.diagnostics[1].message.find("line 2"), std::string::npos) << r.diagnostics[1].message;
  EXPECT_EQ(r.diagnostics[2].severity, Diagnostic::Severity::kWarning);
}

TEST_F(LoadManifestsTest, MissingPathIsAnErrorAndOtherPathsAreStillRead) {
  const std::string good = Write("good.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  const std::string missing = (dir_ / "missing.yaml").string();
  std::istringstream in;
  LoadResult r = LoadManifests({missing, good}, in);
  EXPECT_TRUE(r.HasErrors());
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].source, missing);
  EXPECT_EQ(r.diagnostics[0].message, "cannot read: no such file or directory");
  EXPECT_EQ(r.objects.nodes.size(), 1u);
}

TEST_F(LoadManifestsTest, UnreadableFileIsAnError) {
  const std::string path = Write("secret.yaml", "kind: Node\n");
  fs::permissions(path, fs::perms::none);
  std::ifstream probe(path);
  if (probe.is_open()) GTEST_SKIP() << "running as a user who can read any file";
  std::istringstream in;
  LoadResult r = LoadManifests({path}, in);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::kError);
  EXPECT_EQ(r.diagnostics[0].source, path);
  EXPECT_EQ(r.diagnostics[0].message, "cannot open for reading");
}

TEST_F(LoadManifestsTest, PathThroughAFileIsAnError) {
  const std::string file = Write("plain.yaml", "kind: Node\n");
  std::istringstream in;
  LoadResult r = LoadManifests({file + "/inner.yaml"}, in);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::kError);
  EXPECT_EQ(r.diagnostics[0].source, file + "/inner.yaml");
  EXPECT_EQ(r.diagnostics[0].message.rfind("cannot read: ", 0), 0u);
}

TEST_F(LoadManifestsTest, EmptyDirectoryIsAWarning) {
  std::istringstream in;
  LoadResult r = LoadManifests({dir_.string()}, in);
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].severity, Diagnostic::Severity::kWarning);
  EXPECT_FALSE(r.HasErrors());
}

}  // namespace
}  // namespace quotient::kube
