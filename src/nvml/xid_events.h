// XID events: the driver's error reports (Xid 48 double-bit ECC, 79 fallen off the bus, ...),
// delivered through an NVML event set. The watcher registers every device for
// nvmlEventTypeXidCriticalError and waits for the next event with nvmlEventSetWait_v2; what an
// XID means and what to do about it is src/nodehealth's business.
//
// After NVML_ERROR_GPU_IS_LOST (or a driver reload) the set is no good: Recreate frees it and
// registers the devices NVML still shows again. The watcher is used by one thread at a time (the
// agent's event loop); the Nvml it reads must outlive it.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "nvml/gpu_health.h"
#include "nvml/nvml.h"

namespace quotient::nvml {

struct XidEvent {
  // The device, as the watcher saw it when it registered it.
  static constexpr unsigned kUnknownIndex = std::numeric_limits<unsigned>::max();
  unsigned device_index = kUnknownIndex;
  std::string uuid;         // empty if the event names a device the watcher did not register
  uint64_t event_type = 0;  // nvmlEventTypeXidCriticalError (0x8)
  uint64_t xid = 0;         // eventData; 999 = an XID the driver does not know
  // MIG: the instances the error is attributable to, 0xFFFFFFFF when not attributable.
  unsigned gpu_instance_id = 0xFFFFFFFFu;
  unsigned compute_instance_id = 0xFFFFFFFFu;
  // NVML's event data carries no time: when Wait received it.
  std::chrono::system_clock::time_point received_at;
};

struct XidWaitResult {
  enum class Kind {
    kEvent,    // `event` is set
    kTimeout,  // nothing within the timeout (NVML_ERROR_TIMEOUT)
    kGpuLost,  // NVML_ERROR_GPU_IS_LOST: a registered GPU is gone; Recreate the set
    kError,    // any other failure, in `message`
  };
  Kind kind = Kind::kTimeout;
  XidEvent event;
  std::string message;  // kGpuLost, kError: "nvmlEventSetWait_v2: GPU is lost"
};

class XidEventWatcher {
 public:
  // Creates the event set and registers every device NVML shows. A device that cannot be
  // registered (no XID events on it, or lost) is skipped and listed in skipped_devices(); the
  // others are still watched. Errors: the library lacks the event entry points ("NVML lacks
  // nvmlEventSetCreate, ...: no XID events from this driver"), or nvmlEventSetCreate or
  // nvmlDeviceGetCount_v2 fail ("<call>: <nvmlErrorString>").
  static Result<std::unique_ptr<XidEventWatcher>> Create(const Nvml& nvml);

  XidEventWatcher(const XidEventWatcher&) = delete;
  XidEventWatcher& operator=(const XidEventWatcher&) = delete;
  ~XidEventWatcher();  // nvmlEventSetFree

  // Waits up to `timeout` (whole milliseconds, at most 2^32-1) for the next event.
  XidWaitResult Wait(std::chrono::milliseconds timeout);

  // Frees the set and builds a new one over the devices NVML shows now (Create's rules).
  Status Recreate();

  // The UUIDs registered, in device order.
  std::vector<std::string> registered_uuids() const;
  // The devices Create or Recreate could not register, and why:
  // "nvmlDeviceRegisterEvents(device 1): Not Supported".
  const std::vector<NvmlCallError>& skipped_devices() const { return skipped_; }

 private:
  struct Registered {
    unsigned index;
    std::string uuid;
    abi::Device handle;
  };

  explicit XidEventWatcher(const Nvml& nvml) : nvml_(nvml) {}
  Status Build();  // creates set_ and fills registered_, skipped_
  void Free();

  const Nvml& nvml_;
  abi::EventSet set_ = nullptr;
  std::vector<Registered> registered_;
  std::vector<NvmlCallError> skipped_;
};

}  // namespace quotient::nvml
