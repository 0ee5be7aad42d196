// Node and Pod decoding (host ports included; affinity is in affinity_codec_test.cc) through
// DecodeManifestText, from YAML and from JSON.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kube/loader.h"

namespace quotient::kube {
namespace {

using core::Quantity;
using namespace std::chrono_literals;

LoadResult Decode(std::string_view text, std::string_view source = "cluster.yaml") {
  LoadResult out;
  DecodeManifestText(text, source, out);
  return out;
}

constexpr std::string_view kNodeYaml = R"(
apiVersion: v1
kind: Node
metadata:
  name: gpu-node-1
  uid: 5f3c-11
  labels:
    nvidia.com/gpu.memory: "81920"
    kai.scheduler/node-pool: pool-a
  creationTimestamp: "2025-01-02T03:04:05Z"
spec:
  unschedulable: true
  taints:
  - key: nvidia.com/gpu
    effect: NoSchedule
  - key: dedicated
    value: ml
    effect: NoExecute
status:
  capacity:
    cpu: "64"
  allocatable:
    cpu: 63500m
    memory: 515762304Ki
    nvidia.com/gpu: "8"
    pods: "110"
    ephemeral-storage: "1.5"
    nvidia.com/mig-1g.10gb: 2
    example.com/dev: 1500u
  conditions:
  - type: Ready
    status: "True"
  - type: PIDPressure
    status: "True"
  - type: DiskPressure
    status: "True"
  - type: MemoryPressure
    status: "False"
)";

TEST(NodeCodec, ReadsAllocatableSpecAndConditions) {
  LoadResult r = Decode(kNodeYaml);
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  const core::NodeObject& node = r.objects.nodes[0];
  EXPECT_EQ(node.meta.name, "gpu-node-1");
  EXPECT_EQ(node.meta.namespace_name, "");
  EXPECT_EQ(node.meta.Key(), "gpu-node-1");
  EXPECT_EQ(node.meta.uid, "5f3c-11");
  EXPECT_EQ(node.meta.source, "cluster.yaml");
  EXPECT_EQ(node.meta.labels.at("kai.scheduler/node-pool"), "pool-a");
  EXPECT_EQ(node.meta.creation_time,
            core::Time(std::chrono::sys_days(2025y / 1 / 2) + 3h + 4min + 5s));
  EXPECT_FALSE(node.meta.deleting);
  EXPECT_TRUE(node.unschedulable);
  ASSERT_EQ(node.taints.size(), 2u);
  EXPECT_EQ(node.taints[0].key, "nvidia.com/gpu");
  EXPECT_EQ(node.taints[0].value, "");
  EXPECT_EQ(node.taints[0].effect, "NoSchedule");
  EXPECT_EQ(node.taints[1].value, "ml");
  // Allocatable wins over capacity.
  EXPECT_EQ(node.allocatable.cpu_milli, Quantity(63500));
  EXPECT_EQ(node.allocatable.memory_bytes, Quantity(int64_t{515762304} * 1024));
  EXPECT_EQ(node.allocatable.gpu_milli, Quantity(8000));
  EXPECT_EQ(node.allocatable.pods_milli, Quantity(110000));
  EXPECT_EQ(node.allocatable.Scalar("ephemeral-storage"), Quantity(1500));
  EXPECT_EQ(node.allocatable.Scalar("nvidia.com/mig-1g.10gb"), Quantity(2000));
  EXPECT_EQ(node.allocatable.Scalar("example.com/dev"), Quantity(1));  // 1.5 milli rounds down
  EXPECT_TRUE(node.ready);
  EXPECT_EQ(node.bad_conditions, (std::vector<std::string>{"DiskPressure", "PIDPressure"}));
  EXPECT_TRUE(node.problems.empty());
}

TEST(NodeCodec, CapacityIsUsedWithoutAllocatableAndRoundsDown) {
  LoadResult r = Decode(R"({
    "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n2"},
    "status": {"capacity": {"cpu": "2.0005", "memory": "1500m", "nvidia.com/gpu": 1},
               "conditions": [{"type": "Ready", "status": "False"}]}})",
                        "nodes.json");
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  const core::NodeObject& node = r.objects.nodes[0];
  EXPECT_EQ(node.allocatable.cpu_milli, Quantity(2000));
  EXPECT_EQ(node.allocatable.memory_bytes, Quantity(1));
  EXPECT_EQ(node.allocatable.gpu_milli, Quantity(1000));
  EXPECT_FALSE(node.ready);
  EXPECT_FALSE(node.unschedulable);
  EXPECT_EQ(node.meta.creation_time.time_since_epoch().count(), 0);  // absent: epoch
  EXPECT_EQ(node.meta.source, "nodes.json");
}

TEST(NodeCodec, NodeWithoutReadyConditionCountsReady) {
  LoadResult r = Decode("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n");
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  EXPECT_TRUE(r.objects.nodes[0].ready);
  EXPECT_TRUE(r.objects.nodes[0].allocatable == core::ResourceVector());
}

constexpr std::string_view kPodYaml = R"(
apiVersion: v1
kind: Pod
metadata:
  name: train-0
  namespace: team-a
  labels: {kai.scheduler/queue: team-a}
  annotations: {pod-group-name: pg-1, gpu-fraction: "0.5"}
  creationTimestamp: "2025-03-04T05:06:07.123456+02:00"
  deletionTimestamp: "2025-03-04T06:00:00Z"
spec:
  schedulerName: kai-scheduler
  nodeName: node-1
  priorityClassName: train
  priority: 50
  schedulingGates: [{name: wait-for-quota}]
  nodeSelector: {nvidia.com/gpu.product: H100}
  tolerations:
  - key: nvidia.com/gpu
    operator: Exists
    effect: NoSchedule
  - key: dedicated
    value: ml
  overhead: {cpu: 250m, memory: 120Mi}
  initContainers:
  - name: init
    resources:
      limits: {cpu: "2", memory: 1Gi}
  containers:
  - name: main
    resources:
      requests: {cpu: 1500m, memory: 1.5Gi}
      limits: {cpu: "4", nvidia.com/gpu: "2"}
  - name: sidecar
    resources:
      requests: {cpu: 0.0001, memory: "100.5"}
status:
  phase: Running
)";

TEST(NodeCodec, ReadsTheNodeAgentsFaultsAndUnhealthyGpus) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n", "annotations": {"quotient.dev/gpu-health":
      "{\"unhealthy\": [{\"uuid\": \"GPU-aa\", \"index\": 3, \"reason\": \"RowRemapPending\"}], \"confined\": [\"RowRemapPending\"]}"}},
    "status": {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "7"},
      "conditions": [
        {"type": "Ready", "status": "True"},
        {"type": "GpuXidFatal", "status": "True", "reason": "Xid79"},
        {"type": "GpuLost", "status": "False", "reason": "GpuHealthy"},
        {"type": "IbPortDegraded", "status": "Unknown"},
        {"type": "GpuMemoryDegraded", "status": "True", "reason": "RowRemapPending"}]}})",
                        "node.json");
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  const core::NodeObject& n = r.objects.nodes[0];
  EXPECT_TRUE(n.problems.empty());
  // The agent's faults that are True, with their reasons; not the kubelet's pressure list.
  EXPECT_TRUE(n.bad_conditions.empty());
  ASSERT_EQ(n.fault_conditions.size(), 2u);
  EXPECT_EQ(n.fault_conditions[0].type, "GpuMemoryDegraded");
  EXPECT_EQ(n.fault_conditions[0].reason, "RowRemapPending");
  EXPECT_EQ(n.fault_conditions[1].type, "GpuXidFatal");
  EXPECT_EQ(n.fault_conditions[1].reason, "Xid79");
  ASSERT_EQ(n.unhealthy_gpus.size(), 1u);
  EXPECT_EQ(n.unhealthy_gpus[0].uuid, "GPU-aa");
  EXPECT_EQ(n.unhealthy_gpus[0].index, 3);
  EXPECT_EQ(n.unhealthy_gpus[0].reason, "RowRemapPending");
  EXPECT_EQ(n.confined_reasons, std::vector<std::string>{"RowRemapPending"});
  EXPECT_EQ(n.capacity_gpu_milli, Quantity(8000));
  EXPECT_EQ(n.allocatable.gpu_milli, Quantity(7000));
}

TEST(NodeCodec, UnreadableGpuHealthIsAProblemNotAHealthyNode) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Node",
    "metadata": {"name": "n", "annotations": {"quotient.dev/gpu-health": "[1, 2"}}})",
                        "node.json");
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  ASSERT_EQ(r.objects.nodes[0].problems.size(), 1u);
  EXPECT_NE(r.objects.nodes[0].problems[0].find("quotient.dev/gpu-health"), std::string::npos);
}

TEST(PodCodec, ReadsSpecStatusAndContainerRequests) {
  LoadResult r = Decode(kPodYaml);
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const core::PodObject& pod = r.objects.pods[0];
  EXPECT_EQ(pod.meta.Key(), "team-a/train-0");
  EXPECT_EQ(pod.meta.annotations.at("gpu-fraction"), "0.5");
  EXPECT_EQ(pod.meta.creation_time,
            core::Time(std::chrono::sys_days(2025y / 3 / 4) + 3h + 6min + 7s));
  EXPECT_TRUE(pod.meta.deleting);
  EXPECT_EQ(pod.scheduler_name, "kai-scheduler");
  EXPECT_EQ(pod.node_name, "node-1");
  EXPECT_EQ(pod.priority_class_name, "train");
  EXPECT_EQ(pod.priority, 50);
  EXPECT_EQ(pod.phase, core::PodPhase::kRunning);
  EXPECT_TRUE(pod.scheduling_gated);
  EXPECT_EQ(pod.node_selector, (core::Labels{{"nvidia.com/gpu.product", "H100"}}));
  ASSERT_EQ(pod.tolerations.size(), 2u);
  EXPECT_EQ(pod.tolerations[0].op, "Exists");
  EXPECT_EQ(pod.tolerations[0].effect, "NoSchedule");
  EXPECT_EQ(pod.tolerations[1].op, "Equal");  // the API default
  EXPECT_EQ(pod.tolerations[1].value, "ml");
  EXPECT_EQ(pod.overhead.cpu_milli, Quantity(250));
  EXPECT_EQ(pod.overhead.memory_bytes, Quantity(120 * 1024 * 1024));

  ASSERT_EQ(pod.init_containers.size(), 1u);  // limits only: request = limit
  EXPECT_EQ(pod.init_containers[0].name, "init");
  EXPECT_EQ(pod.init_containers[0].requests.cpu_milli, Quantity(2000));
  EXPECT_EQ(pod.init_containers[0].requests.memory_bytes, Quantity(1073741824));
  EXPECT_FALSE(pod.init_containers[0].gpu_limit);

  ASSERT_EQ(pod.containers.size(), 2u);
  const core::ContainerResources& main = pod.containers[0];
  EXPECT_EQ(main.name, "main");
  EXPECT_EQ(main.requests.cpu_milli, Quantity(1500));  // the request, not the 4-core limit
  EXPECT_EQ(main.requests.memory_bytes, Quantity(1610612736));
  EXPECT_EQ(main.requests.gpu_milli, Quantity(2000));  // defaulted from the limit
  EXPECT_TRUE(main.gpu_limit);
  const core::ContainerResources& sidecar = pod.containers[1];
  EXPECT_EQ(sidecar.requests.cpu_milli, Quantity(1));       // 0.1 millicore rounds up
  EXPECT_EQ(sidecar.requests.memory_bytes, Quantity(101));  // 100.5 bytes rounds up
  EXPECT_FALSE(sidecar.gpu_limit);
}

TEST(PodCodec, DefaultsFromKubectlJson) {
  LoadResult r = Decode(R"({
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {
      "apiVersion": "v1",
      "kind": "Pod",
      "metadata": {"name": "p", "labels": null},
      "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": 0.1, "nvidia.com/mig-1g.10gb": "1"}}}]},
      "status": {}
    }
  ],
  "metadata": {"resourceVersion": ""}
})",
                        "pods.json");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const core::PodObject& pod = r.objects.pods[0];
  EXPECT_EQ(pod.meta.namespace_name, "default");
  EXPECT_EQ(pod.scheduler_name, "default-scheduler");
  EXPECT_EQ(pod.phase, core::PodPhase::kPending);
  EXPECT_FALSE(pod.priority.has_value());
  EXPECT_FALSE(pod.scheduling_gated);
  EXPECT_FALSE(pod.meta.deleting);
  ASSERT_EQ(pod.containers.size(), 1u);
  EXPECT_EQ(pod.containers[0].requests.cpu_milli, Quantity(100));
  EXPECT_EQ(pod.containers[0].requests.Scalar("nvidia.com/mig-1g.10gb"), Quantity(1000));
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

// The pod's problems are exactly `expected` ("field: message"), each also a warning diagnostic.
void ExpectProblems(const LoadResult& r, const std::vector<std::string>& expected) {
  EXPECT_EQ(OnlyPod(r).problems, expected);
  ASSERT_EQ(r.diagnostics.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(r.diagnostics[i].severity, core::Diagnostic::Severity::kWarning);
    EXPECT_EQ(r.diagnostics[i].object, "Pod team-a/p");
    EXPECT_EQ(r.diagnostics[i].field + ": " + r.diagnostics[i].message, expected[i]);
  }
}

TEST(PodCodec, ReadsTheControllerOwnersKind) {
  LoadResult r = Decode(R"(
apiVersion: v1
kind: Pod
metadata:
  name: worker-0
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: not-the-controller, uid: u0}
  - {apiVersion: kubeflow.org/v1, kind: PyTorchJob, name: train, uid: u1, controller: true}
spec: {containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata:
  name: bare
  ownerReferences:
  - {apiVersion: v1, kind: ConfigMap, name: not-the-controller, uid: u0}
spec: {containers: [{name: c}]}
)");
  ASSERT_EQ(r.objects.pods.size(), 2u);
  EXPECT_EQ(r.objects.pods[0].meta.controller_kind, "PyTorchJob");
  EXPECT_EQ(r.objects.pods[1].meta.controller_kind, "");
}

TEST(PodHostPorts, ReadsHostPortsFromContainersAndInitContainers) {
  LoadResult r = Decode(PodYaml(R"(
  initContainers:
  - name: init
    ports:
    - {containerPort: 9000, hostPort: 9000}
  containers:
  - name: main
    ports:
    - {containerPort: 8080}
    - {containerPort: 8081, hostPort: 0, protocol: HTTP}
    - {containerPort: 53, hostPort: 53, protocol: UDP, hostIP: 10.0.0.1}
    - {containerPort: 80, hostPort: 65535, protocol: TCP}
  - name: sidecar
    ports:
    - {name: metrics, containerPort: 9100, hostPort: 9100, protocol: SCTP}
  - name: no-ports
)"));
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  EXPECT_TRUE(pod.problems.empty());
  // Containers first, then init containers; ports without a host port are not listed.
  ASSERT_EQ(pod.host_ports.size(), 4u);
  EXPECT_EQ(pod.host_ports[0].port, 53);
  EXPECT_EQ(pod.host_ports[0].protocol, "UDP");
  EXPECT_EQ(pod.host_ports[0].host_ip, "10.0.0.1");
  EXPECT_EQ(pod.host_ports[1].port, 65535);
  EXPECT_EQ(pod.host_ports[1].protocol, "TCP");
  EXPECT_EQ(pod.host_ports[1].host_ip, "");
  EXPECT_EQ(pod.host_ports[2].port, 9100);
  EXPECT_EQ(pod.host_ports[2].protocol, "SCTP");
  EXPECT_EQ(pod.host_ports[3].port, 9000);
  EXPECT_EQ(pod.host_ports[3].protocol, "TCP");  // the default
  EXPECT_EQ(pod.host_ports[3].host_ip, "");
  EXPECT_EQ(pod.containers.size(), 3u);
  EXPECT_EQ(pod.init_containers.size(), 1u);
}

TEST(PodHostPorts, ReadsHostPortsFromJson) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "team-a"},
    "spec": {"containers": [{"name": "c", "ports": [
      {"containerPort": 80, "hostPort": 8080, "protocol": "", "hostIP": null},
      {"containerPort": 81, "hostPort": 8081, "hostIP": "::1"}]}]}})",
                        "pods.json");
  EXPECT_TRUE(r.diagnostics.empty()) << r.diagnostics[0].ToString();
  const core::PodObject& pod = OnlyPod(r);
  ASSERT_EQ(pod.host_ports.size(), 2u);
  EXPECT_EQ(pod.host_ports[0].port, 8080);
  EXPECT_EQ(pod.host_ports[0].protocol, "TCP");
  EXPECT_EQ(pod.host_ports[0].host_ip, "");
  EXPECT_EQ(pod.host_ports[1].port, 8081);
  EXPECT_EQ(pod.host_ports[1].protocol, "TCP");
  EXPECT_EQ(pod.host_ports[1].host_ip, "::1");
}

TEST(PodHostPorts, BadHostPortsAreProblems) {
  LoadResult r = Decode(PodYaml(R"(
  containers:
  - name: main
    ports:
    - {containerPort: 80, hostPort: 70000}
    - {containerPort: 81, hostPort: 81, protocol: HTTP}
    - {containerPort: 82, hostPort: -1}
    - {containerPort: 83, hostPort: "83"}
    - {containerPort: 84, hostPort: 84}
  initContainers:
  - name: init
    ports:
    - {containerPort: 85, hostPort: 85, protocol: tcp}
)"));
  ExpectProblems(
      r, {
             "spec.containers[0].ports[0].hostPort: out of range (\"70000\", allowed 0 to 65535)",
             "spec.containers[0].ports[1].protocol: unknown protocol \"HTTP\" (TCP, UDP or SCTP)",
             "spec.containers[0].ports[2].hostPort: out of range (\"-1\", allowed 0 to 65535)",
             "spec.containers[0].ports[3].hostPort: expected an integer, got string (\"83\")",
             "spec.initContainers[0].ports[0].protocol: unknown protocol \"tcp\" (TCP, UDP or "
             "SCTP)",
         });
  const core::PodObject& pod = OnlyPod(r);
  ASSERT_EQ(pod.host_ports.size(), 1u);
  EXPECT_EQ(pod.host_ports[0].port, 84);
}

TEST(PodHostPorts, BadHostPortFromJsonIsAProblem) {
  LoadResult r = Decode(R"({"apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p", "namespace": "team-a"},
    "spec": {"containers": [{"name": "c", "ports": [
      {"containerPort": 80, "hostPort": 70000},
      {"containerPort": 81, "hostPort": 81, "protocol": "HTTP"}]}]}})",
                        "pods.json");
  ExpectProblems(
      r, {
             "spec.containers[0].ports[0].hostPort: out of range (\"70000\", allowed 0 to 65535)",
             "spec.containers[0].ports[1].protocol: unknown protocol \"HTTP\" (TCP, UDP or SCTP)",
         });
  EXPECT_TRUE(OnlyPod(r).host_ports.empty());
}

}  // namespace
}  // namespace quotient::kube
