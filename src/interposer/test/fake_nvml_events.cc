// The fake NVML's event sets: nvmlEventSetWait_v2 returns the scenario's "xid_events" whose
// device is registered in the set, in the file's order, each (by seq) once per event set. It
// polls the scenario file until one is due or the timeout passes (NVML_ERROR_TIMEOUT), so a test
// injects an XID by rewriting the file, even while a wait is blocked.
//
// Unlike a real driver, a new event set also receives the events listed before it was created:
// a scenario may hold the XID that is already there when the agent starts. A registered device
// marked lost makes the wait answer NVML_ERROR_GPU_IS_LOST, as the driver does.
#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "interposer/test/fake_nvml_state.h"

namespace fake_nvml {

// nvml.h's nvmlEventData_t; the event set handle points at an EventSet below.
struct EventData {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
static_assert(sizeof(EventData) == 32);

struct EventSet {
  std::mutex mutex;
  std::set<std::string> uuids;  // registered devices, by UUID: handles are only indices
  unsigned long long mask = 0;  // the event types registered (union over devices)
  std::set<long long> delivered;
};

}  // namespace fake_nvml

namespace {

constexpr unsigned long long kEventTypeXidCriticalError = 0x8;
constexpr unsigned int kNotAttributable = 0xFFFFFFFF;  // gpuInstanceId/computeInstanceId
constexpr auto kPollInterval = std::chrono::milliseconds(10);

// The next undelivered event of a registered device, marking it delivered; a registered device
// that is lost instead; or nothing.
nvmlReturn_t TakeEvent(fake_nvml::EventSet& set, fake_nvml::EventData* data) {
  const auto state = fake_nvml::CurrentState();
  std::lock_guard lock(set.mutex);
  for (const fake_nvml::Device& device : state->devices) {
    if (device.lost && set.uuids.count(device.uuid) != 0) return fake_nvml::kErrorGpuIsLost;
  }
  if ((set.mask & kEventTypeXidCriticalError) == 0) return fake_nvml::kErrorTimeout;
  for (const fake_nvml::XidEvent& event : state->xid_events) {
    if (set.uuids.count(event.uuid) == 0 || set.delivered.count(event.seq) != 0) continue;
    for (unsigned index = 0; index < state->devices.size(); ++index) {
      if (state->devices[index].uuid != event.uuid) continue;
      set.delivered.insert(event.seq);
      *data = fake_nvml::EventData{fake_nvml::HandleOf(index), kEventTypeXidCriticalError,
                                   event.xid, kNotAttributable, kNotAttributable};
      return NVML_SUCCESS;
    }
  }
  return fake_nvml::kErrorTimeout;
}

}  // namespace

FAKE_EXPORT nvmlReturn_t nvmlEventSetCreate(fake_nvml::EventSet** set) {
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  *set = new fake_nvml::EventSet();
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t handle,
                                                  unsigned long long event_types,
                                                  fake_nvml::EventSet* set) {
  const fake_nvml::DeviceCall call = fake_nvml::BeginDeviceCall(handle, "nvmlDeviceRegisterEvents");
  if (call.code != NVML_SUCCESS) return call.code;
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  // The fake supports XID events only; the driver refuses a mask with a type it cannot deliver.
  if ((event_types & ~kEventTypeXidCriticalError) != 0) return fake_nvml::kErrorNotSupported;
  std::lock_guard lock(set->mutex);
  set->uuids.insert(call.device->uuid);
  set->mask |= event_types;
  return NVML_SUCCESS;
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetWait_v2(fake_nvml::EventSet* set, fake_nvml::EventData* data,
                                             unsigned int timeout_ms) {
  if (set == nullptr || data == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    const nvmlReturn_t code = TakeEvent(*set, data);
    if (code != fake_nvml::kErrorTimeout) return code;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) return fake_nvml::kErrorTimeout;
    std::this_thread::sleep_for(
        std::min<std::chrono::steady_clock::duration>(kPollInterval, deadline - now));
  }
}

FAKE_EXPORT nvmlReturn_t nvmlEventSetFree(fake_nvml::EventSet* set) {
  if (set == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
  delete set;
  return NVML_SUCCESS;
}
