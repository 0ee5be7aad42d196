// Snapshot: the immutable, resolved view of a cluster that one scheduling cycle works on.
//
// Built from ClusterObjects by BuildSnapshot (snapshot_builder.h), which applies KAI's rules for
// labels, annotations, defaults and validation. Every collection is a vector sorted by key (node
// name, "ns/name", queue name), and objects refer to each other by index into those vectors, so
// iteration order is deterministic and lookups are cheap. Nothing here does I/O or reads a clock:
// the snapshot carries the `now` it was built for.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/gpu_sharing.h"
#include "core/objects.h"
#include "core/resources.h"

namespace quotient::core {

using Index = int32_t;
inline constexpr Index kNone = -1;

// KAI's task statuses (kai-reference §2.1).
enum class PodStatus {
  kPending,
  kGated,
  kAllocated,
  kPipelined,
  kBinding,
  kBound,
  kRunning,
  kReleasing,
  kSucceeded,
  kFailed,
  kUnknown,
};
std::string_view PodStatusName(PodStatus s);
// Allocated|Bound|Binding|Running: counted as the queue's allocation.
bool IsAllocatedStatus(PodStatus s);
// Allocated|Pipelined|Binding|Bound|Running|Releasing: holds resources on a node.
bool IsActiveUsedStatus(PodStatus s);

// One GPU of a node. Whole-GPU pods own a device; fractional pods share a device that is named by
// its GPU group (the runai-gpu-group label KAI's binder puts on them).
struct GpuDevice {
  enum class State { kIdle, kWhole, kShared };
  struct Holder {
    Index pod = kNone;
    Quantity portion_milli;  // the pod's portion of this device
  };

  State state = State::kIdle;
  std::string group;  // kShared: the GPU group name
  std::vector<Holder> holders;
  Quantity used_portion_milli;  // sum of holders' portions (kWhole: 1000)
};

// The NVIDIA device plugin's MIG strategy (label nvidia.com/mig.strategy) of a MIG-enabled node.
enum class MigStrategy { kUnset, kSingle, kMixed };

struct Node {
  std::string name;
  Labels labels;
  std::vector<Taint> taints;
  ResourceVector allocatable;
  std::string node_pool;  // value of kai.scheduler/node-pool, empty for the default pool
  // Usable for scheduling and counted in fair-share capacity: Ready, not cordoned, no pressure
  // condition, no input problem. When false, `unusable_reason` says why.
  bool usable = true;
  std::string unusable_reason;
  std::optional<int64_t> gpu_memory_mib;  // nvidia.com/gpu.memory label, when present and valid
  bool mig_enabled = false;  // KAI's IsMIGEnabled (label, else any allocatable MIG profile)
  MigStrategy mig_strategy = MigStrategy::kUnset;  // none or unknown
  // Legacy MIG pods (GpuSharing::legacy_mig) holding resources here in the snapshot. KAI's node
  // keeps them for the whole session, even one evicted in it (node_info.go, LegacyMIGTasks).
  int32_t legacy_mig_pods = 0;
  // GPUs the node agent reports unhealthy, already left out of `allocatable` and `gpus`.
  int64_t unhealthy_gpus = 0;
  std::vector<GpuDevice> gpus;  // one per allocatable nvidia.com/gpu (more if over-committed)
  std::vector<Index> pods;      // pods holding resources here, sorted by key
  ResourceVector used;          // sum of requests of those pods
};

struct Pod {
  // The pod's metadata without its annotations: those the scheduler reads are read into fields
  // here (pod_group_name, gpu), and the rest (often large: kubectl's last-applied
  // configuration) would only be copied into every cycle's snapshot.
  ObjectMeta meta;
  std::string key;  // ns/name
  std::string scheduler_name;
  std::string priority_class_name;  // spec.priorityClassName (an implicit group's priority)
  bool ours = false;                // scheduled by this scheduler
  PodStatus status = PodStatus::kPending;
  std::string node_name;  // spec.nodeName as given
  // A pod in phase Running being deleted (status kReleasing): its deletionTimestamp. KAI calls
  // such a pod StuckInReleasing once that is more than the scheduler's
  // stuckInReleasingThreshold ago (IsStuckInReleasing below).
  std::optional<Time> releasing_since;
  Index node = kNone;      // the node holding the pod's resources, when it is in the snapshot
  ResourceVector request;  // max(sum of containers, largest init container) + overhead + 1 pod
  GpuSharing gpu;
  std::vector<std::string> gpu_groups;   // shared GPU groups held (runai-gpu-group labels)
  Index job = kNone;                     // kNone for pods of other schedulers
  std::string pod_group_name;            // the pod-group-name annotation, "" = none
  std::string sub_group;                 // kai.scheduler/subgroup-name label, "" = default
  std::optional<int64_t> task_priority;  // kai.scheduler/task-priority label
  // A Kubeflow master/launcher (training.kubeflow.org/job-role) or Ray head (ray.io/node-type):
  // placed before the other pods of its group.
  bool leader_task = false;
  Labels node_selector;
  std::vector<Toleration> tolerations;
  Affinity affinity;
  std::vector<HostPort> host_ports;
  // The PodDisruptionBudgets covering the pod (indices into Snapshot::budgets). The Eviction API
  // refuses outright to evict a pod covered by more than one.
  std::vector<Index> budgets;
  // Why this pod cannot be scheduled regardless of the cluster state (bad input). Empty if none.
  std::vector<std::string> problems;
};

// KAI's StuckInReleasing (pod_info.go, getTaskStatus): a Running pod whose deletion began more
// than `threshold` before `now`. It keeps status kReleasing here, but the session counts its
// resources as held, not releasing: nothing is pipelined onto them.
bool IsStuckInReleasing(const Pod& pod, Time now, std::chrono::seconds threshold);

struct SubGroup {
  std::string name;
  int32_t min_member = 1;
  Index parent = kNone;  // index into Job::sub_groups
  bool leaf = true;
  std::vector<Index> pods;
};

// A PodGroup ("job" in KAI's code): the unit of gang scheduling.
struct Job {
  std::string key;  // ns/name
  std::string namespace_name;
  std::string name;
  std::string uid;
  Time creation_time{};
  bool implicit = false;  // made for a pod with no PodGroup
  std::string queue_name;
  Index queue = kNone;
  int32_t priority = 50;
  bool preemptible = true;
  int32_t min_member = 1;
  // kai.scheduler/node-pool of the PodGroup (implicit groups: of the pod); "" = default pool.
  std::string node_pool;
  // When the job last went from no running pods to running (annotation
  // kai.scheduler/last-start-timestamp, written by the scheduler): min-runtime protection.
  std::optional<Time> last_start_time;
  // When the job was first seen stale (kai.scheduler/stale-podgroup-timestamp).
  std::optional<Time> stale_since;
  // Per-group override of the stale-gang grace period: KAI's spec.stalenessGracePeriod, else
  // Quotient's older annotation quotient.dev/stale-grace-period (a Go duration; negative = never
  // evict).
  std::optional<std::chrono::seconds> stale_grace_period;
  // KAI's spec.preemptionDelay (positive only), and when one of the job's pods was last evicted
  // (annotation kai.scheduler/last-eviction-timestamp): the job may not evict others until the
  // delay has passed since the later of its creation and that eviction.
  std::optional<std::chrono::seconds> preemption_delay;
  std::optional<Time> last_eviction_time;
  // Leaf subgroups carry gang minimums; without subGroups there is one leaf "default" with
  // max(minMember, 1).
  std::vector<SubGroup> sub_groups;
  std::vector<Index> pods;  // sorted by key
  // Why the job cannot be scheduled whatever the cluster looks like (QueueDoesNotExist, bad
  // input). Empty if none.
  std::vector<std::string> problems;
};

struct Queue {
  std::string name;
  std::string display_name;
  std::string uid;
  Time creation_time{};
  Index parent = kNone;
  std::vector<Index> children;  // sorted by name
  int32_t priority = 100;
  PerResource<QueueResource> resources;
  std::optional<std::chrono::seconds> preempt_min_runtime;
  std::optional<std::chrono::seconds> reclaim_min_runtime;
  // Why the queue is unusable (its parent is missing, a cycle, bad input); a queue with problems
  // and its whole subtree are left out of fair share and their jobs are unschedulable.
  std::vector<std::string> problems;
  // Values accepted as KAI accepts them, worth a word to the queue's owner (QueueObject).
  std::vector<std::string> warnings;

  bool is_leaf() const { return children.empty(); }
};

// A PodDisruptionBudget: the pods it covers and how many of them may be disrupted now.
struct DisruptionBudget {
  std::string key;  // ns/name
  int32_t disruptions_allowed = 0;
  std::vector<Index> pods;  // sorted by key
};

// KAI's own utility pods (GPU reservation, scale-up pods, ours included): they hold
// resources on nodes but are not "foreign" usage for fair share.
bool IsUtilityPod(const Pod& pod);

// KAI's MinNodeGPUMemoryMiB: the smallest labelled GPU memory above KAI's 100 MiB placeholder
// (node_info.DefaultGpuMemory, which an unlabelled node has); nullopt when no node has one.
std::optional<int64_t> MinNodeGpuMemoryMib(const std::vector<Node>& nodes);
// KAI's MaxNodeGPUMemoryMiB: the largest of the same.
std::optional<int64_t> MaxNodeGpuMemoryMib(const std::vector<Node>& nodes);

struct Snapshot {
  Time now{};
  std::string scheduler_name;
  std::vector<Node> nodes;                // by name
  std::vector<Pod> pods;                  // by key
  std::vector<Job> jobs;                  // by key
  std::vector<Queue> queues;              // by name
  std::vector<DisruptionBudget> budgets;  // by key
  // Smallest nvidia.com/gpu.memory over the nodes (MinNodeGpuMemoryMib), used to size pending
  // gpu-memory requests.
  std::optional<int64_t> min_node_gpu_memory_mib;
  // Largest of them (MaxNodeGpuMemoryMib): the divisor of a pending gpu-memory request in the
  // queue capacity checks, where the smallest fraction it could become is what counts.
  std::optional<int64_t> max_node_gpu_memory_mib;

  Index FindNode(std::string_view name) const;
  Index FindPod(std::string_view key) const;
  Index FindJob(std::string_view key) const;
  Index FindQueue(std::string_view name) const;
  // Top-level queues (no parent), sorted by name.
  std::vector<Index> RootQueues() const;
};

}  // namespace quotient::core
