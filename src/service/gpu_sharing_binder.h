// What a fractional pod needs before its bind, as KAI's binder does it (kai-reference §5.3), and
// the garbage collection that follows:
//
//  1. The pod must carry `runai/shared-gpu-configmap` (set by `quotient webhook`): a pod the
//     webhook never saw (its failure policy is Ignore) would run without its GPU wiring and its
//     memory limit, so it is not bound; the error says so.
//  2. For each GPU group of the decision, the group's reservation pod: in the reservation
//     namespace, bound to the node (nodeName), asking the device plugin for `nvidia.com/gpu: 1`,
//     running `quotient gpu-reservation`, which publishes its GPU's UUID in the annotation
//     `run.ai/reserve_for_gpu_index`. Found by its `runai-gpu-group` label, else created (its
//     name is derived from the group, so two binds racing for a new group make one pod) and
//     waited for until the UUID appears.
//  3. The pod's `runai-gpu-group` label (`runai-gpu-group/<g>` per group for several devices).
//  4. The container's ConfigMap `<prefix>-<container index>` (owned by the pod):
//     NVIDIA_VISIBLE_DEVICES (the UUIDs), GPU_PORTION and RUNAI_NUM_OF_GPUS (the portion per
//     device, "0.50"), QUOTIENT_GPU_MEMORY_LIMIT (bytes per device, for the interposer).
// A step that fails undoes the steps before it (ConfigMap, label, reservation pods this bind
// created that no other bind uses); so does Undo after a failed bind.
//
// Collect deletes reservation pods whose group no pod holds any more, and, as KAI does, evicts
// fractional pods whose reservation pod is gone (their device is no longer reserved from the
// device plugin, so another pod may be given it) — each only after it has stayed so for a grace
// period, so a bind in flight or a watch event still on its way is never mistaken for it.
//
// Thread safety: Prepare and Undo run on the bind workers, Collect on the cycle thread; the
// groups in flight are shared under a mutex.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "core/objects.h"
#include "kubeclient/client.h"

namespace quotient::service {

inline constexpr char kSharedGpuConfigMapAnnotation[] = "runai/shared-gpu-configmap";
inline constexpr char kReservationGpuAnnotation[] = "run.ai/reserve_for_gpu_index";
inline constexpr char kReservationAppLabel[] = "quotient-gpu-reservation";

struct GpuSharingOptions {
  std::string scheduler_name = "quotient";  // Collect deletes only this scheduler's pods
  std::string reservation_namespace = "quotient-resource-reservation";
  std::string reservation_image = "quotient:0.1.0";
  std::string reservation_service_account;  // "" = the namespace's default
  std::string runtime_class;                // "" = the node's default runtime
  // How long a new reservation pod may take to publish its GPU (KAI: 40 s).
  std::chrono::milliseconds allocation_timeout{40'000};
  std::chrono::milliseconds poll_interval{200};
  // How long a reservation pod without holders, or a fractional pod without its reservation,
  // is left alone before Collect acts.
  std::chrono::milliseconds collect_grace{30'000};
};

// One fractional bind: the pod as cached, where it goes, its groups, and the node's GPU memory
// (MiB, from nvidia.com/gpu.memory; nullopt when the node does not say).
struct SharedGpuBind {
  core::PodObject pod;
  std::string node;
  std::vector<std::string> groups;
  std::optional<int64_t> node_gpu_memory_mib;
};

// What Prepare did, for Undo.
struct PreparedSharing {
  std::string namespace_name;
  std::string pod;
  std::vector<std::string> groups;
  std::vector<std::string> created_reservations;  // names in the reservation namespace
  std::string config_map;                         // "" when none was written
  bool labelled = false;
};

struct CollectStats {
  int reservations_deleted = 0;
  int orphans_deleted = 0;  // evicted
};

class GpuSharingBinder {
 public:
  GpuSharingBinder(kubeclient::Client& client, GpuSharingOptions options);

  // Steps 1–4; an error names the pod, the step and the cause, with everything undone.
  Result<PreparedSharing> Prepare(const SharedGpuBind& bind);
  // After a failed bind: removes the ConfigMap and the label, and the reservation pods Prepare
  // created if no other bind uses their group. Marks the groups as no longer in flight.
  void Undo(const PreparedSharing& prepared);
  // After a successful bind: the groups are no longer in flight.
  void Done(const PreparedSharing& prepared);

  // `pods`: every pod the scheduler sees (the reservation namespace included); `now` a
  // monotonic time. Returns what it deleted.
  CollectStats Collect(const std::vector<core::PodObject>& pods,
                       std::chrono::steady_clock::time_point now);

  // The reservation pod's name for `group` on `node`: gpu-reservation-<node>-<5 of a hash>.
  static std::string ReservationName(const std::string& node, const std::string& group);
  // The portion of a device as KAI writes it ("0.50"), from thousandths.
  static std::string PortionText(int64_t portion_milli);

 private:
  struct Reservation {
    std::string name;
    std::string uuid;
    bool created = false;
  };
  Result<Reservation> EnsureReservation(const std::string& node, const std::string& group);
  Result<std::string> WaitForGpu(const std::string& name);
  std::string ReservationJson(const std::string& name, const std::string& node,
                              const std::string& group) const;
  void Release(const std::vector<std::string>& groups);

  kubeclient::Client& client_;
  GpuSharingOptions options_;
  std::mutex mu_;
  std::map<std::string, int> in_flight_;  // group -> binds preparing or binding it
  std::map<std::string, std::chrono::steady_clock::time_point> unheld_since_;  // reservation
  std::map<std::string, std::chrono::steady_clock::time_point> orphan_since_;  // ns/pod
};

}  // namespace quotient::service
