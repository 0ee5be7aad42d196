#include "nvml/xid_events.h"

#include <algorithm>
#include <cstring>

namespace quotient::nvml {
namespace {

std::string DeviceCall(const char* call, unsigned index) {
  return std::string(call) + "(device " + std::to_string(index) + ")";
}

}  // namespace

Result<std::unique_ptr<XidEventWatcher>> XidEventWatcher::Create(const Nvml& nvml) {
  std::unique_ptr<XidEventWatcher> watcher(new XidEventWatcher(nvml));
  if (Status built = watcher->Build(); !built.ok()) return built;
  return watcher;
}

XidEventWatcher::~XidEventWatcher() { Free(); }

void XidEventWatcher::Free() {
  const Symbols& symbols = nvml_.symbols();
  // A failed free (the driver is gone) leaves nothing for us to do.
  if (set_ != nullptr && symbols.event_set_free != nullptr) (void)symbols.event_set_free(set_);
  set_ = nullptr;
}

Status XidEventWatcher::Build() {
  const Symbols& symbols = nvml_.symbols();
  std::string missing;
  const std::pair<const char*, bool> entry_points[] = {
      {"nvmlEventSetCreate", symbols.event_set_create != nullptr},
      {"nvmlDeviceRegisterEvents", symbols.device_register_events != nullptr},
      {"nvmlEventSetWait_v2", symbols.event_set_wait != nullptr},
      {"nvmlEventSetFree", symbols.event_set_free != nullptr},
  };
  for (const auto& [name, present] : entry_points) {
    if (!present) missing += (missing.empty() ? "" : ", ") + std::string(name);
  }
  if (!missing.empty()) {
    return Status::Error("NVML lacks " + missing + ": no XID events from this driver");
  }

  abi::EventSet set = nullptr;
  if (Status created = symbols.Check("nvmlEventSetCreate", symbols.event_set_create(&set));
      !created.ok()) {
    return created;
  }
  set_ = set;
  unsigned int count = 0;
  if (Status counted = symbols.Check("nvmlDeviceGetCount_v2", symbols.device_get_count(&count));
      !counted.ok()) {
    Free();
    return counted;
  }
  for (unsigned index = 0; index < count; ++index) {
    // A device that fails any step is skipped with the step's answer; the rest are watched.
    auto skip = [&](const char* call, abi::Return code) {
      skipped_.push_back(
          NvmlCallError{call, code, symbols.Describe(DeviceCall(call, index), code)});
    };
    abi::Device handle = nullptr;
    if (abi::Return code = symbols.device_get_handle(index, &handle); code != abi::kSuccess) {
      skip("nvmlDeviceGetHandleByIndex_v2", code);
      continue;
    }
    char uuid[abi::kUuidBufferSize] = {};
    if (abi::Return code = symbols.device_get_uuid(handle, uuid, abi::kUuidBufferSize);
        code != abi::kSuccess) {
      skip("nvmlDeviceGetUUID", code);
      continue;
    }
    if (abi::Return code =
            symbols.device_register_events(handle, abi::kEventTypeXidCriticalError, set_);
        code != abi::kSuccess) {
      skip("nvmlDeviceRegisterEvents", code);
      continue;
    }
    registered_.push_back(
        Registered{index, std::string(uuid, strnlen(uuid, abi::kUuidBufferSize)), handle});
  }
  return Status::Ok();
}

Status XidEventWatcher::Recreate() {
  Free();
  registered_.clear();
  skipped_.clear();
  return Build();
}

std::vector<std::string> XidEventWatcher::registered_uuids() const {
  std::vector<std::string> uuids;
  for (const Registered& device : registered_) uuids.push_back(device.uuid);
  return uuids;
}

XidWaitResult XidEventWatcher::Wait(std::chrono::milliseconds timeout) {
  const Symbols& symbols = nvml_.symbols();
  XidWaitResult result;
  if (set_ == nullptr) {
    result.kind = XidWaitResult::Kind::kError;
    result.message = "nvmlEventSetWait_v2: no event set (the last Recreate failed)";
    return result;
  }
  const auto milliseconds =
      std::clamp<std::chrono::milliseconds::rep>(timeout.count(), 0, 0xFFFFFFFF);
  abi::EventData data{};
  const abi::Return code =
      symbols.event_set_wait(set_, &data, static_cast<unsigned int>(milliseconds));
  if (code == abi::kErrorTimeout) return result;
  if (code != abi::kSuccess) {
    result.kind =
        code == abi::kErrorGpuIsLost ? XidWaitResult::Kind::kGpuLost : XidWaitResult::Kind::kError;
    result.message = symbols.Describe("nvmlEventSetWait_v2", code);
    return result;
  }
  result.kind = XidWaitResult::Kind::kEvent;
  XidEvent& event = result.event;
  event.received_at = std::chrono::system_clock::now();
  event.event_type = data.eventType;
  event.xid = data.eventData;
  event.gpu_instance_id = data.gpuInstanceId;
  event.compute_instance_id = data.computeInstanceId;
  const auto device = std::find_if(registered_.begin(), registered_.end(),
                                   [&](const Registered& r) { return r.handle == data.device; });
  if (device != registered_.end()) {
    event.device_index = device->index;
    event.uuid = device->uuid;
  }
  return result;
}

}  // namespace quotient::nvml
