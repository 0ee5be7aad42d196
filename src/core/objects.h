// The Kubernetes objects Quotient reads, as plain structs in core units.
//
// The kube layer decodes API objects (JSON or YAML) into these and translates Kubernetes-side
// encodings at the edge: quantities become Quantity in each resource's base unit, a queue's -1
// becomes Bound::Unlimited(), queue memory in MB becomes bytes. Everything KAI reads from labels
// and annotations (queue label, pod-group-name, gpu-fraction, ...) stays as strings here and is
// interpreted by the snapshot builder, so those rules live in the core and are tested there.
//
// An object the decoder could read only in part still arrives, with `problems` saying what was
// wrong (naming the field); the snapshot builder makes such an object unschedulable with that
// reason instead of failing the run.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/quantity.h"
#include "core/resources.h"

namespace quotient::core {

using Time = std::chrono::sys_seconds;
using Labels = std::map<std::string, std::string>;  // ordered: iteration is deterministic

struct ObjectMeta {
  std::string namespace_name;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  Labels labels;
  Labels annotations;
  Time creation_time{};
  bool deleting = false;  // metadata.deletionTimestamp is set
  // metadata.deletionTimestamp, when it parses (a pod's StuckInReleasing clock).
  std::optional<Time> deletion_time;
  std::string source;  // where the object was read from ("cluster.yaml", "-"), for messages
  // The kind of the owner reference marked controller ("ReplicaSet", "PyTorchJob"), "" = none.
  std::string controller_kind;

  // The same metadata without its annotations (what a snapshot's pod keeps). Every field is
  // named, so a field added above and not here is a -Wmissing-field-initializers error.
  ObjectMeta WithoutAnnotations() const {
    return {namespace_name, name,     uid,           labels, Labels{},
            creation_time,  deleting, deletion_time, source, controller_kind};
  }

  // "ns/name", or "name" for cluster-scoped objects.
  std::string Key() const { return namespace_name.empty() ? name : namespace_name + "/" + name; }
};

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule, PreferNoSchedule, NoExecute
};

struct Toleration {
  std::string key;
  std::string op;  // Equal (default) or Exists
  std::string value;
  std::string effect;  // empty = all effects
};

// A fault condition of the node agent's that is True (core/node_health.h).
struct FaultCondition {
  std::string type;    // GpuXidFatal, ...
  std::string reason;  // Xid79, ...
};

// A GPU the node agent reports unhealthy (core/node_health.h).
struct UnhealthyGpu {
  std::string uuid;
  int64_t index = -1;
  std::string reason;
};

struct NodeObject {
  ObjectMeta meta;
  ResourceVector allocatable;  // status.allocatable (capacity rounds down)
  // status.capacity's nvidia.com/gpu, when given: the device plugin takes devices it finds
  // unhealthy out of allocatable only, so capacity tells whether it already left one out.
  std::optional<Quantity> capacity_gpu_milli;
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  bool ready = true;           // condition Ready is True (a node with no conditions counts ready)
  // Conditions that make a node unusable when True: MemoryPressure, DiskPressure, PIDPressure,
  // NetworkUnavailable. Sorted.
  std::vector<std::string> bad_conditions;
  std::vector<FaultCondition> fault_conditions;  // the node agent's, True ones, by type
  std::vector<UnhealthyGpu> unhealthy_gpus;      // the quotient.dev/gpu-health annotation
  std::vector<std::string> confined_reasons;     // its "confined": fault reasons scoped to a GPU
  std::vector<Taint> taints;
  std::vector<std::string> problems;
};

enum class PodPhase { kPending, kRunning, kSucceeded, kFailed, kUnknown };

// A label (or field) requirement: operator In, NotIn, Exists, DoesNotExist, Gt or Lt, as in
// Kubernetes' NodeSelectorRequirement and LabelSelectorRequirement.
struct SelectorRequirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

// One term of a required node affinity: all of its requirements must hold. Terms are ORed.
struct NodeSelectorTerm {
  std::vector<SelectorRequirement> match_expressions;  // on node labels
  std::vector<SelectorRequirement> match_fields;       // on node fields (metadata.name)
};

struct LabelSelector {
  Labels match_labels;
  std::vector<SelectorRequirement> match_expressions;  // In, NotIn, Exists, DoesNotExist
};

// A required pod (anti-)affinity term: pods matching `selector` in `namespaces` (empty = the
// pod's own namespace, unless `namespace_selector_all`) on nodes sharing `topology_key`.
struct PodAffinityTerm {
  LabelSelector selector;
  std::vector<std::string> namespaces;
  bool namespace_selector_all = false;  // namespaceSelector: {} selects every namespace
  std::string topology_key;
};

struct Affinity {
  std::vector<NodeSelectorTerm>
      required_node_terms;  // requiredDuringSchedulingIgnoredDuringExecution
  std::vector<PodAffinityTerm> required_pod_affinity;
  std::vector<PodAffinityTerm> required_pod_anti_affinity;
};

// A container port with a hostPort (only those matter for scheduling).
struct HostPort {
  int32_t port = 0;
  std::string protocol = "TCP";
  std::string host_ip;  // empty = 0.0.0.0
};

struct ContainerResources {
  std::string name;
  ResourceVector requests;  // requests, defaulted from limits as the API server does
  bool gpu_limit = false;   // the container sets an nvidia.com/gpu limit
};

struct PodObject {
  ObjectMeta meta;
  std::string scheduler_name = "default-scheduler";
  std::string node_name;
  std::string priority_class_name;
  std::optional<int32_t> priority;  // spec.priority
  PodPhase phase = PodPhase::kPending;
  bool scheduling_gated = false;  // spec.schedulingGates is non-empty
  std::vector<ContainerResources> containers;
  std::vector<ContainerResources> init_containers;
  ResourceVector overhead;  // spec.overhead
  Labels node_selector;
  std::vector<Toleration> tolerations;
  Affinity affinity;
  std::vector<HostPort> host_ports;  // from containers and init containers
  std::vector<std::string> problems;
};

// One resource of a queue: quota (deserved), limit and over-quota weight, in base units.
// Unset fields arrive as 0 (KAI: quota 0 = no guarantee, limit 0 = hard zero, weight 0 = nothing
// beyond quota); -1 arrives as Bound::Unlimited(). Other negative amounts and weights are kept
// as the numbers they are, as KAI computes with them (docs/design/fair-share.md).
struct QueueResource {
  Bound quota = Bound::Of(Quantity::Zero());
  Bound limit = Bound::Of(Quantity::Zero());
  Quantity over_quota_weight_milli;  // weight x 1000
};

struct QueueObject {
  ObjectMeta meta;
  std::string display_name;
  std::string parent;               // spec.parentQueue, empty for a top-level queue
  std::optional<int32_t> priority;  // spec.priority; KAI's default is 100
  PerResource<QueueResource> resources;
  std::optional<std::chrono::seconds> preempt_min_runtime;
  std::optional<std::chrono::seconds> reclaim_min_runtime;
  std::vector<std::string> problems;
  // Values accepted as KAI accepts them that a person should hear about (a negative weight, a
  // negative quota, no spec.resources): "field: message". The queue is scheduled.
  std::vector<std::string> warnings;
};

enum class Preemptibility { kUnset, kPreemptible, kNonPreemptible };

struct SubGroupSpec {
  std::string name;
  int32_t min_member = 1;
  std::optional<std::string> parent;
};

struct PodGroupObject {
  ObjectMeta meta;
  std::string queue;
  std::string priority_class_name;
  Preemptibility preemptibility = Preemptibility::kUnset;
  int32_t min_member = 1;
  std::vector<SubGroupSpec> sub_groups;
  bool mark_unschedulable = true;
  int32_t scheduling_backoff = -1;
  std::optional<std::chrono::seconds> preemption_delay;        // spec.preemptionDelay
  std::optional<std::chrono::seconds> staleness_grace_period;  // spec.stalenessGracePeriod
  std::vector<std::string> problems;
};

struct PriorityClassObject {
  ObjectMeta meta;
  int32_t value = 0;
  bool global_default = false;
  std::vector<std::string> problems;
};

// policy/v1 PodDisruptionBudget: what the solver needs to keep evictions within it. The budget
// counts from status.disruptionsAllowed, the figure the Eviction API itself checks (computed by
// the disruption controller); a PDB the controller has not processed yet allows none.
struct PodDisruptionBudgetObject {
  ObjectMeta meta;
  // spec.selector; nullopt = a null selector, which selects no pod (policy/v1). An empty
  // selector selects every pod of the namespace.
  std::optional<LabelSelector> selector;
  int32_t disruptions_allowed = 0;
  std::vector<std::string> problems;
};

// Everything read from the input, in input order.
struct ClusterObjects {
  std::vector<NodeObject> nodes;
  std::vector<PodObject> pods;
  std::vector<QueueObject> queues;
  std::vector<PodGroupObject> pod_groups;
  std::vector<PriorityClassObject> priority_classes;
  std::vector<PodDisruptionBudgetObject> pod_disruption_budgets;
};

}  // namespace quotient::core
