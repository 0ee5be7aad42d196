#include "nvml/gpu_health.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace quotient::nvml {
namespace {

// One pass over one device: every call goes through Call, which sorts its answer into the
// reading (value, not supported, error, lost) and refuses to call once the GPU is lost.
class Reader {
 public:
  Reader(const Symbols& symbols, GpuHealthReading& reading)
      : symbols_(symbols), reading_(reading) {}

  // Calls `function(args...)` (FUNCTION_NOT_FOUND for a missing entry point) and records the
  // outcome under `call`; true when the outputs are valid.
  template <typename Function, typename... Args>
  bool Call(const std::string& call, Function function, Args... args) {
    if (reading_.lost) return false;
    const abi::Return code = function == nullptr ? abi::kErrorFunctionNotFound : function(args...);
    return Record(call, code);
  }

  // Sorts one answer into the reading; true for NVML_SUCCESS.
  bool Record(const std::string& call, abi::Return code) {
    if (code == abi::kSuccess) return true;
    if (code == abi::kErrorNotSupported || code == abi::kErrorFunctionNotFound) {
      auto& list = reading_.not_supported;
      if (std::find(list.begin(), list.end(), call) == list.end()) list.push_back(call);
      return false;
    }
    if (code == abi::kErrorGpuIsLost) reading_.lost = true;
    reading_.errors.push_back(NvmlCallError{call, code, symbols_.Describe(WithDevice(call), code)});
    return false;
  }

  bool lost() const { return reading_.lost; }

 private:
  // "f" -> "f(device 2)", "f(link 3)" -> "f(device 2, link 3)".
  std::string WithDevice(const std::string& call) const {
    const std::string device = "device " + std::to_string(reading_.index);
    const size_t open = call.find('(');
    if (open == std::string::npos) return call + "(" + device + ")";
    return call.substr(0, open + 1) + device + ", " + call.substr(open + 1);
  }

  const Symbols& symbols_;
  GpuHealthReading& reading_;
};

// The text NVML wrote into `buffer`, bounded by it.
template <size_t N>
std::string FromBuffer(const char (&buffer)[N]) {
  return std::string(buffer, strnlen(buffer, N));
}

void ReadEcc(Reader& reader, const Symbols& symbols, abi::Device device, EccCounts& ecc) {
  struct Counter {
    const char* name;
    int error_type;
    int counter_type;
    std::optional<uint64_t>* out;
  };
  const Counter counters[] = {
      {"volatile corrected", abi::kMemoryErrorCorrected, abi::kVolatileEcc,
       &ecc.volatile_corrected},
      {"volatile uncorrected", abi::kMemoryErrorUncorrected, abi::kVolatileEcc,
       &ecc.volatile_uncorrected},
      {"aggregate corrected", abi::kMemoryErrorCorrected, abi::kAggregateEcc,
       &ecc.aggregate_corrected},
      {"aggregate uncorrected", abi::kMemoryErrorUncorrected, abi::kAggregateEcc,
       &ecc.aggregate_uncorrected},
  };
  for (const Counter& counter : counters) {
    unsigned long long count = 0;
    if (reader.Call(std::string("nvmlDeviceGetTotalEccErrors(") + counter.name + ")",
                    symbols.device_get_total_ecc_errors, device, counter.error_type,
                    counter.counter_type, &count)) {
      *counter.out = count;
    }
  }
}

// The number of pages retired for `cause`. Asked with an empty buffer: NVML answers
// INSUFFICIENT_SIZE with the count when there are any, SUCCESS when there are none.
std::optional<unsigned> RetiredPageCount(Reader& reader, const Symbols& symbols, abi::Device device,
                                         int cause, const char* name) {
  if (reader.lost()) return std::nullopt;
  const std::string call = std::string("nvmlDeviceGetRetiredPages_v2(") + name + ")";
  unsigned int count = 0;
  unsigned long long address = 0;  // never written with count 0; some drivers refuse null
  unsigned long long timestamp = 0;
  const abi::Return code =
      symbols.device_get_retired_pages == nullptr
          ? abi::kErrorFunctionNotFound
          : symbols.device_get_retired_pages(device, cause, &count, &address, &timestamp);
  if (!reader.Record(call, code == abi::kErrorInsufficientSize ? abi::kSuccess : code)) {
    return std::nullopt;
  }
  return count;
}

void ReadRetiredPages(Reader& reader, const Symbols& symbols, abi::Device device,
                      RetiredPages& pages) {
  pages.multiple_single_bit =
      RetiredPageCount(reader, symbols, device, abi::kRetirementMultipleSingleBitEcc, "single bit");
  pages.double_bit =
      RetiredPageCount(reader, symbols, device, abi::kRetirementDoubleBitEcc, "double bit");
  int pending = abi::kFeatureDisabled;
  if (reader.Call("nvmlDeviceGetRetiredPagesPendingStatus",
                  symbols.device_get_retired_pages_pending, device, &pending)) {
    pages.pending = pending == abi::kFeatureEnabled;
  }
}

void ReadNvLinks(Reader& reader, const Symbols& symbols, abi::Device device,
                 GpuHealthReading& reading) {
  std::vector<NvLinkReading> links;
  for (unsigned link = 0; link < abi::kNvLinkMaxLinks && !reader.lost(); ++link) {
    int state = abi::kFeatureDisabled;
    const abi::Return code = symbols.device_get_nvlink_state == nullptr
                                 ? abi::kErrorFunctionNotFound
                                 : symbols.device_get_nvlink_state(device, link, &state);
    if (code == abi::kErrorInvalidArgument || code == abi::kErrorNotSupported ||
        code == abi::kErrorFunctionNotFound) {
      // Past the last link. At link 0, the device has none the driver will show.
      if (link == 0) reader.Record("nvmlDeviceGetNvLinkState", abi::kErrorNotSupported);
      break;
    }
    if (!reader.Record("nvmlDeviceGetNvLinkState(link " + std::to_string(link) + ")", code)) {
      break;  // an error (recorded): the links read so far stand, the rest are unknown
    }
    NvLinkReading reading_of_link;
    reading_of_link.link = link;
    reading_of_link.active = state == abi::kFeatureEnabled;
    struct Counter {
      const char* name;
      int counter;
      std::optional<uint64_t>* out;
    };
    const Counter counters[] = {
        {"replay", abi::kNvLinkErrorDlReplay, &reading_of_link.replay_errors},
        {"recovery", abi::kNvLinkErrorDlRecovery, &reading_of_link.recovery_errors},
        {"crc flit", abi::kNvLinkErrorDlCrcFlit, &reading_of_link.crc_flit_errors},
        {"crc data", abi::kNvLinkErrorDlCrcData, &reading_of_link.crc_data_errors},
    };
    for (const Counter& counter : counters) {
      if (reader.lost()) break;
      unsigned long long value = 0;
      const abi::Return counter_code =
          symbols.device_get_nvlink_error_counter == nullptr
              ? abi::kErrorFunctionNotFound
              : symbols.device_get_nvlink_error_counter(device, link, counter.counter, &value);
      // Not supported is the same answer on every link: listed once, without the link.
      const bool unsupported =
          counter_code == abi::kErrorNotSupported || counter_code == abi::kErrorFunctionNotFound;
      const std::string call =
          unsupported ? std::string("nvmlDeviceGetNvLinkErrorCounter(") + counter.name + ")"
                      : "nvmlDeviceGetNvLinkErrorCounter(link " + std::to_string(link) + ", " +
                            counter.name + ")";
      if (reader.Record(call, counter_code)) *counter.out = value;
    }
    links.push_back(reading_of_link);
  }
  if (!links.empty() && !reader.lost()) reading.nvlinks = std::move(links);
}

void ReadPcie(Reader& reader, const Symbols& symbols, abi::Device device, PcieReading& pcie) {
  struct Value {
    const char* call;
    abi::DeviceGetUnsignedFn function;
    std::optional<unsigned>* out;
  };
  const Value values[] = {
      {"nvmlDeviceGetCurrPcieLinkGeneration", symbols.device_get_curr_pcie_generation,
       &pcie.current_generation},
      {"nvmlDeviceGetMaxPcieLinkGeneration", symbols.device_get_max_pcie_generation,
       &pcie.max_generation},
      {"nvmlDeviceGetCurrPcieLinkWidth", symbols.device_get_curr_pcie_width, &pcie.current_width},
      {"nvmlDeviceGetMaxPcieLinkWidth", symbols.device_get_max_pcie_width, &pcie.max_width},
      {"nvmlDeviceGetPcieReplayCounter", symbols.device_get_pcie_replay_counter,
       &pcie.replay_count},
  };
  for (const Value& value : values) {
    unsigned int answer = 0;
    if (reader.Call(value.call, value.function, device, &answer)) *value.out = answer;
  }
}

// An unsigned field value, whatever integer type the driver chose for it.
std::optional<uint64_t> UnsignedValue(const abi::FieldValue& field) {
  switch (field.valueType) {
    case abi::kValueTypeUnsignedInt:
      return field.value.uiVal;
    case abi::kValueTypeUnsignedLong:
      return field.value.ulVal;
    case abi::kValueTypeUnsignedLongLong:
      return field.value.ullVal;
    case abi::kValueTypeUnsignedShort:
      return field.value.usVal;
    case abi::kValueTypeSignedInt:
      if (field.value.siVal >= 0) return static_cast<uint64_t>(field.value.siVal);
      return std::nullopt;
    case abi::kValueTypeSignedLongLong:
      if (field.value.sllVal >= 0) return static_cast<uint64_t>(field.value.sllVal);
      return std::nullopt;
    default:
      return std::nullopt;  // a double: no integer field is sent that way
  }
}

void ReadRecoveryAction(Reader& reader, const Symbols& symbols, abi::Device device,
                        GpuHealthReading& reading) {
  const std::string call = "nvmlDeviceGetFieldValues(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION)";
  abi::FieldValue field{};
  field.fieldId = abi::kFieldGpuRecoveryAction;
  if (!reader.Call(call, symbols.device_get_field_values, device, 1, &field)) return;
  if (!reader.Record(call, field.nvmlReturn)) return;  // the field's own answer
  const std::optional<uint64_t> value = UnsignedValue(field);
  if (!value || *value > 0xFFFFFFFFu) {
    reading.errors.push_back(NvmlCallError{
        call, abi::kSuccess,
        call + ": value type " + std::to_string(field.valueType) + " is not an unsigned integer"});
    return;
  }
  reading.recovery_action = static_cast<GpuRecoveryAction>(static_cast<unsigned>(*value));
}

}  // namespace

GpuHealthReading ReadGpuHealth(const Nvml& nvml, unsigned index) {
  const Symbols& symbols = nvml.symbols();
  GpuHealthReading reading;
  reading.index = index;
  Reader reader(symbols, reading);

  abi::Device device = nullptr;
  if (!reader.Call("nvmlDeviceGetHandleByIndex_v2", symbols.device_get_handle, index, &device)) {
    return reading;  // nothing else can be asked without the handle
  }
  char uuid[abi::kUuidBufferSize] = {};
  if (reader.Call("nvmlDeviceGetUUID", symbols.device_get_uuid, device, uuid,
                  abi::kUuidBufferSize)) {
    reading.uuid = FromBuffer(uuid);
  }
  abi::PciInfo pci{};
  if (reader.Call("nvmlDeviceGetPciInfo_v3", symbols.device_get_pci_info, device, &pci)) {
    reading.pci_bus_id = FromBuffer(pci.busId);
  }
  unsigned int corrected = 0, uncorrected = 0, pending = 0, failure = 0;
  if (reader.Call("nvmlDeviceGetRemappedRows", symbols.device_get_remapped_rows, device, &corrected,
                  &uncorrected, &pending, &failure)) {
    reading.remapped_rows = RemappedRows{corrected, uncorrected, pending != 0, failure != 0};
  }
  ReadEcc(reader, symbols, device, reading.ecc);
  ReadRetiredPages(reader, symbols, device, reading.retired_pages);
  ReadNvLinks(reader, symbols, device, reading);
  ReadPcie(reader, symbols, device, reading.pcie);
  ReadRecoveryAction(reader, symbols, device, reading);
  return reading;
}

}  // namespace quotient::nvml
