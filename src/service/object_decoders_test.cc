#include "service/object_decoders.h"

#include <gtest/gtest.h>

namespace quotient::service {
namespace {

kubeclient::RawObject Raw(const std::string& json) {
  Result<kubeclient::RawObject> raw = kubeclient::ReadRawObject(json);
  EXPECT_TRUE(raw.ok()) << raw.message();
  return raw.ok() ? *raw : kubeclient::RawObject{};
}

TEST(ObjectDecodersTest, PodFromTheApiServersJsonKeepsWhatSchedulingNeeds) {
  Result<core::PodObject> pod = DecodePodObject(Raw(
      R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","namespace":"ns","uid":"u1","resourceVersion":"7","labels":{"kai.scheduler/queue":"team"},"annotations":{"pod-group-name":"g"}},
          "spec":{"schedulerName":"quotient","nodeName":"n1","containers":[{"name":"c","resources":{"requests":{"cpu":"500m","memory":"1Gi"},"limits":{"nvidia.com/gpu":"2"}}}]},
          "status":{"phase":"Running"}})"));
  ASSERT_TRUE(pod.ok()) << pod.message();
  EXPECT_EQ(pod->meta.Key(), "ns/p");
  EXPECT_EQ(pod->scheduler_name, "quotient");
  EXPECT_EQ(pod->node_name, "n1");
  EXPECT_EQ(pod->phase, core::PodPhase::kRunning);
  ASSERT_EQ(pod->containers.size(), 1u);
  EXPECT_TRUE(pod->problems.empty());
}

TEST(ObjectDecodersTest, AFieldThatCannotBeReadTravelsAsAProblemNotAFailure) {
  Result<core::PodObject> pod = DecodePodObject(Raw(
      R"({"metadata":{"name":"p","namespace":"ns"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"lots"}}}]}})"));
  ASSERT_TRUE(pod.ok()) << pod.message();
  ASSERT_FALSE(pod->problems.empty());
  EXPECT_NE(pod->problems.front().find("cpu"), std::string::npos) << pod->problems.front();
}

TEST(ObjectDecodersTest, QueueNodeAndPodGroupDecode) {
  Result<core::QueueObject> queue = DecodeQueueObject(Raw(
      R"({"apiVersion":"scheduling.run.ai/v2","kind":"Queue","metadata":{"name":"team"},"spec":{"resources":{"gpu":{"quota":8,"limit":-1,"overQuotaWeight":2}}}})"));
  ASSERT_TRUE(queue.ok()) << queue.message();
  EXPECT_EQ(queue->meta.name, "team");
  Result<core::NodeObject> node = DecodeNodeObject(Raw(
      R"({"metadata":{"name":"n1"},"status":{"allocatable":{"cpu":"64","nvidia.com/gpu":"8"},"conditions":[{"type":"Ready","status":"True"}]}})"));
  ASSERT_TRUE(node.ok()) << node.message();
  EXPECT_EQ(node->meta.name, "n1");
  Result<core::PodGroupObject> group = DecodePodGroupObject(
      Raw(R"({"metadata":{"name":"g","namespace":"ns"},"spec":{"queue":"team","minMember":4}})"));
  ASSERT_TRUE(group.ok()) << group.message();
  EXPECT_EQ(group->meta.Key(), "ns/g");
}

TEST(ObjectDecodersTest, TextThatIsNotJsonIsAnErrorNamingTheObject) {
  kubeclient::RawObject raw;
  raw.namespace_name = "ns";
  raw.name = "broken";
  raw.json = "{not json";
  Result<core::PodObject> pod = DecodePodObject(raw);
  ASSERT_FALSE(pod.ok());
  EXPECT_EQ(pod.message().rfind("Pod ns/broken: ", 0), 0u) << pod.message();
}

}  // namespace
}  // namespace quotient::service
