#include "podgrouper/pod_group_codec.h"

#include <gtest/gtest.h>

#include "podgrouper/test_view.h"

namespace quotient::podgrouper {
namespace {

TEST(PodGroupCodecTest, ReadsAPodGroup) {
  Result<std::vector<kube::Value>> docs = kube::ParseYamlDocuments(R"(
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata:
  name: pg-train-u1
  namespace: ml
  uid: pg1
  ownerReferences:
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: train, uid: u1, controller: true}
spec:
  minMember: 5
  queue: team-a
  priorityClassName: train
  subGroups:
  - {name: master, minMember: 1}
  - {name: worker, minMember: 4}
)");
  ASSERT_TRUE(docs.ok());
  Result<Object> object = ObjectFromValue(docs.value()[0]);
  ASSERT_TRUE(object.ok()) << object.message();
  const PodGroupSpec pg = PodGroupSpecFromObject(object.value());
  EXPECT_EQ(pg.name, "pg-train-u1");
  EXPECT_EQ(pg.min_member, 5);
  EXPECT_EQ(pg.queue, "team-a");
  EXPECT_EQ(pg.owner.kind, "PyTorchJob");
  ASSERT_EQ(pg.sub_groups.size(), 2u);
  EXPECT_EQ(pg.sub_groups[1], (SubGroupSpec{"worker", 4, ""}));
}

TEST(PodGroupCodecTest, ReadsKaisDefaultPrioritiesList) {
  Result<std::map<std::string, KindDefaults>> d = ParseKindDefaults(
      R"([{"typeName": "Deployment", "group": "apps", "priorityName": "train"},
          {"typeName": "Pod", "priorityName": "build", "preemptibility": "non-preemptible"}])");
  ASSERT_TRUE(d.ok()) << d.message();
  EXPECT_EQ(d.value().at("Deployment.apps").priority_class, "train");
  EXPECT_EQ(d.value().at("Pod").preemptibility, "non-preemptible");
  EXPECT_EQ(ParseKindDefaults("{}").message(), "types: expected a JSON list");
  EXPECT_EQ(ParseKindDefaults(R"([{"group": "apps"}])").message(), "types[0].typeName: missing");
  EXPECT_EQ(ParseKindDefaults(R"([{"typeName": "Pod", "preemptibility": "maybe"}])").message(),
            "types[0].preemptibility: \"maybe\" (expected preemptible or non-preemptible)");
}

}  // namespace
}  // namespace quotient::podgrouper
