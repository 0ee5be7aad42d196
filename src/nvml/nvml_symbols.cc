#include "nvml/nvml_symbols.h"

#include <dlfcn.h>

namespace quotient::nvml {
namespace {

// Fills one slot of the table per Bind, remembering the names it could not find.
class Resolver {
 public:
  explicit Resolver(void* handle) : handle_(handle) {}

  template <typename Function>
  void Bind(const char* name, Function& slot) {
    void* address = dlsym(handle_, name);
    if (address == nullptr) {
      missing_ += missing_.empty() ? name : std::string(", ") + name;
      return;
    }
    slot = reinterpret_cast<Function>(address);
  }

  // For entry points some supported drivers lack: the slot stays null.
  template <typename Function>
  void BindOptional(const char* name, Function& slot) {
    if (void* address = dlsym(handle_, name); address != nullptr) {
      slot = reinterpret_cast<Function>(address);
    }
  }

  const std::string& missing() const { return missing_; }

 private:
  void* handle_;
  std::string missing_;
};

}  // namespace

std::string Symbols::Describe(std::string_view call, abi::Return code) const {
  // nvmlErrorString works before nvmlInit_v2 and after a failed one, so it also explains why
  // initialisation failed; a null answer (never seen) still leaves the code to go by.
  const char* text = error_string != nullptr ? error_string(code) : nullptr;
  std::string message(call);
  message += ": ";
  message += text != nullptr ? std::string(text) : "NVML error " + std::to_string(code);
  return message;
}

Status Symbols::Check(std::string_view call, abi::Return code) const {
  return code == abi::kSuccess ? Status::Ok() : Status::Error(Describe(call, code));
}

Result<Symbols> ResolveSymbols(void* handle, std::string_view library) {
  Symbols symbols;
  Resolver resolver(handle);
  resolver.Bind("nvmlInit_v2", symbols.init);
  resolver.Bind("nvmlShutdown", symbols.shutdown);
  resolver.Bind("nvmlErrorString", symbols.error_string);
  resolver.Bind("nvmlDeviceGetCount_v2", symbols.device_get_count);
  resolver.Bind("nvmlDeviceGetHandleByIndex_v2", symbols.device_get_handle);
  resolver.Bind("nvmlDeviceGetUUID", symbols.device_get_uuid);
  resolver.Bind("nvmlDeviceGetName", symbols.device_get_name);
  resolver.Bind("nvmlDeviceGetMemoryInfo", symbols.device_get_memory);

  resolver.BindOptional("nvmlDeviceGetPciInfo_v3", symbols.device_get_pci_info);
  resolver.BindOptional("nvmlDeviceGetRemappedRows", symbols.device_get_remapped_rows);
  resolver.BindOptional("nvmlDeviceGetTotalEccErrors", symbols.device_get_total_ecc_errors);
  resolver.BindOptional("nvmlDeviceGetRetiredPages_v2", symbols.device_get_retired_pages);
  resolver.BindOptional("nvmlDeviceGetRetiredPagesPendingStatus",
                        symbols.device_get_retired_pages_pending);
  resolver.BindOptional("nvmlDeviceGetNvLinkState", symbols.device_get_nvlink_state);
  resolver.BindOptional("nvmlDeviceGetNvLinkErrorCounter", symbols.device_get_nvlink_error_counter);
  resolver.BindOptional("nvmlDeviceGetCurrPcieLinkGeneration",
                        symbols.device_get_curr_pcie_generation);
  resolver.BindOptional("nvmlDeviceGetMaxPcieLinkGeneration",
                        symbols.device_get_max_pcie_generation);
  resolver.BindOptional("nvmlDeviceGetCurrPcieLinkWidth", symbols.device_get_curr_pcie_width);
  resolver.BindOptional("nvmlDeviceGetMaxPcieLinkWidth", symbols.device_get_max_pcie_width);
  resolver.BindOptional("nvmlDeviceGetPcieReplayCounter", symbols.device_get_pcie_replay_counter);
  resolver.BindOptional("nvmlDeviceGetFieldValues", symbols.device_get_field_values);
  resolver.BindOptional("nvmlEventSetCreate", symbols.event_set_create);
  resolver.BindOptional("nvmlDeviceRegisterEvents", symbols.device_register_events);
  resolver.BindOptional("nvmlEventSetWait_v2", symbols.event_set_wait);
  resolver.BindOptional("nvmlEventSetFree", symbols.event_set_free);
  if (!resolver.missing().empty()) {
    return Result<Symbols>::Error(std::string(library) + " lacks " + resolver.missing());
  }
  return symbols;
}

}  // namespace quotient::nvml
