#include "daytwo/strip.h"

#include <gtest/gtest.h>

namespace quotient::daytwo {
namespace {

using nlohmann::json;

TEST(StripObject, APodKeepsWhatSchedulingReadsAndNoSecrets) {
  const json pod = json::parse(R"({
    "metadata": {"name": "p", "namespace": "ns", "uid": "u", "managedFields": [{"manager": "x"}],
      "labels": {"app": "a"},
      "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"env\":\"s3cr3t\"}",
                      "pod-group-name": "g"},
      "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": "j", "uid": "j1",
                           "controller": true, "blockOwnerDeletion": true}]},
    "spec": {"schedulerName": "quotient", "nodeName": "n1", "serviceAccountName": "sa",
      "tolerations": [{"operator": "Exists"}],
      "volumes": [{"name": "creds", "secret": {"secretName": "token"}}],
      "containers": [{"name": "main", "image": "img", "command": ["run"],
        "env": [{"name": "PASSWORD", "value": "s3cr3t"}],
        "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
    "status": {"phase": "Running", "podIP": "10.0.0.1", "startTime": "2026-01-01T00:00:00Z"}})");
  const nlohmann::ordered_json out = StripObject({"Pod", "v1"}, pod);
  const std::string text = out.dump();
  EXPECT_EQ(text.find("s3cr3t"), std::string::npos) << text;
  EXPECT_EQ(text.find("token"), std::string::npos) << text;
  EXPECT_EQ(text.find("managedFields"), std::string::npos);
  EXPECT_EQ(text.find("podIP"), std::string::npos);
  EXPECT_EQ(text.find("image"), std::string::npos);
  EXPECT_EQ(out["apiVersion"], "v1");
  EXPECT_EQ(out["kind"], "Pod");
  EXPECT_EQ(out["metadata"]["annotations"]["pod-group-name"], "g");
  EXPECT_EQ(out["metadata"]["ownerReferences"][0]["kind"], "Job");
  EXPECT_FALSE(out["metadata"]["ownerReferences"][0].contains("blockOwnerDeletion"));
  EXPECT_EQ(out["spec"]["nodeName"], "n1");
  EXPECT_EQ(out["spec"]["tolerations"][0]["operator"], "Exists");
  EXPECT_EQ(out["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"], "1");
  EXPECT_EQ(out["status"]["phase"], "Running");
}

TEST(StripObject, ANodeKeepsCapacityTaintsAndConditionsWithoutHeartbeats) {
  const json node = json::parse(R"({
    "metadata": {"name": "n1", "labels": {"pool": "a"}},
    "spec": {"unschedulable": true, "podCIDR": "10.0.0.0/24",
             "taints": [{"key": "k", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"nvidia.com/gpu": "8"}, "capacity": {"nvidia.com/gpu": "8"},
      "images": [{"names": ["big"]}], "nodeInfo": {"kernelVersion": "6"},
      "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "x",
                      "reason": "KubeletReady"}]}})");
  const nlohmann::ordered_json out = StripObject({"Node", "v1"}, node);
  EXPECT_EQ(out["spec"]["unschedulable"], true);
  EXPECT_EQ(out["spec"]["taints"][0]["key"], "k");
  EXPECT_FALSE(out["spec"].contains("podCIDR"));
  EXPECT_FALSE(out["status"].contains("images"));
  EXPECT_FALSE(out["status"].contains("nodeInfo"));
  EXPECT_EQ(out["status"]["allocatable"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(out["status"]["conditions"][0]["reason"], "KubeletReady");
  EXPECT_FALSE(out["status"]["conditions"][0].contains("lastHeartbeatTime"));
}

}  // namespace
}  // namespace quotient::daytwo
