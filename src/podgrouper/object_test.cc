// Decoding the objects the groupers read, and reading counts from specs.
#include "podgrouper/object.h"

#include <gtest/gtest.h>

namespace quotient::podgrouper {
namespace {

Result<Object> Parse(const std::string& yaml) {
  Result<std::vector<kube::Value>> docs = kube::ParseYamlDocuments(yaml);
  EXPECT_TRUE(docs.ok()) << docs.message();
  return ObjectFromValue(docs.value().at(0));
}

TEST(PodGrouperObjectTest, DecodesMetadataAndOwners) {
  Result<Object> o = Parse(R"(
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata:
  name: train
  namespace: ml
  uid: u1
  labels: {a: b}
  ownerReferences:
  - {apiVersion: v1, kind: Pod, name: other, uid: u0}
  - {apiVersion: argoproj.io/v1alpha1, kind: Workflow, name: wf, uid: u2, controller: true}
spec: {x: 1}
)");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o.value().group(), "kubeflow.org");
  EXPECT_EQ(o.value().Describe(), "PyTorchJob ml/train");
  EXPECT_EQ(o.value().labels.at("a"), "b");
  ASSERT_NE(o.value().ControllerOwner(), nullptr);
  // The controller reference, not the first.
  EXPECT_EQ(o.value().ControllerOwner()->kind, "Workflow");
  ASSERT_NE(At(o.value(), {"spec", "x"}), nullptr);
  EXPECT_EQ(At(o.value(), {"spec", "y", "z"}), nullptr);
}

TEST(PodGrouperObjectTest, TheCoreGroupIsEmpty) {
  Result<Object> o = Parse("{apiVersion: v1, kind: Pod, metadata: {name: p, uid: u}}");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o.value().group(), "");
  EXPECT_EQ(o.value().ControllerOwner(), nullptr);
}

TEST(PodGrouperObjectTest, ListItemsGetTheKindTheCallerKnows) {
  Result<std::vector<kube::Value>> docs =
      kube::ParseYamlDocuments("{metadata: {name: p, namespace: n, uid: u}}");
  ASSERT_TRUE(docs.ok());
  Result<Object> o = ObjectFromValue(docs.value()[0], "v1", "Pod");
  ASSERT_TRUE(o.ok()) << o.message();
  EXPECT_EQ(o.value().Describe(), "Pod n/p");
  EXPECT_EQ(o.value().api_version, "v1");
}

TEST(PodGrouperObjectTest, BadMetadataIsAnErrorNamingTheField) {
  EXPECT_EQ(Parse("{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: n}}").message(),
            "Pod n/p: metadata.uid: missing");
  EXPECT_EQ(Parse("{kind: Pod, metadata: {name: p, uid: u}}").message(), "apiVersion: missing");
  EXPECT_EQ(
      Parse("{apiVersion: v1, kind: Pod, metadata: {name: p, uid: u, labels: {a: [1]}}}").message(),
      "Pod p: metadata.labels.a: expected a string");
  EXPECT_EQ(Parse("{apiVersion: v1, kind: Pod, metadata: {name: p, uid: u, ownerReferences: "
                  "[{kind: Job}]}}")
                .message(),
            "Pod p: metadata.ownerReferences[0]: apiVersion, kind and name are required");
}

TEST(PodGrouperObjectTest, CountsAreNonNegativeIntegersOrAWarning) {
  Result<Object> o = Parse(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: j, namespace: n, uid: u}
spec: {a: 3, b: -1, c: "4", d: 1.5, e: null}
)");
  ASSERT_TRUE(o.ok()) << o.message();
  std::vector<std::string> warnings;
  const Object& job = o.value();
  EXPECT_EQ(ReadCount(At(job, {"spec", "a"}), job, "spec.a", warnings), 3);
  EXPECT_EQ(ReadCount(At(job, {"spec", "missing"}), job, "spec.missing", warnings), std::nullopt);
  EXPECT_EQ(ReadCount(At(job, {"spec", "e"}), job, "spec.e", warnings), std::nullopt);
  EXPECT_TRUE(warnings.empty());
  EXPECT_EQ(ReadCount(At(job, {"spec", "b"}), job, "spec.b", warnings), std::nullopt);
  EXPECT_EQ(ReadCount(At(job, {"spec", "c"}), job, "spec.c", warnings), std::nullopt);
  EXPECT_EQ(ReadCount(At(job, {"spec", "d"}), job, "spec.d", warnings), std::nullopt);
  ASSERT_EQ(warnings.size(), 3u);
  EXPECT_EQ(warnings[0], "Job n/j: spec.b: expected a non-negative integer, got -1");
  EXPECT_EQ(warnings[1], "Job n/j: spec.c: expected a non-negative integer, got a string");
  EXPECT_EQ(warnings[2], "Job n/j: spec.d: expected a non-negative integer, got 1.5");
}

}  // namespace
}  // namespace quotient::podgrouper
