// The fake NVML's state: the scenario file (parsed with nlohmann-json, cached by the file's
// identity) or, without one, the original fake's environment variables (fake_nvml_state.h).
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>
#include <thread>

#include "interposer/test/fake_nvml_state.h"

namespace fake_nvml {
namespace {

using Json = nlohmann::json;

std::string GeneratedUuid(unsigned index) {
  char uuid[64];
  std::snprintf(uuid, sizeof uuid, "GPU-00000000-0000-0000-0000-%012x", index);
  return uuid;
}

// NVML_DEVICE_PCI_BUS_ID_FMT "%08X:%02X:%02X.0"; bus index + 1, as no real GPU sits on bus 0.
std::string GeneratedBusId(unsigned index) {
  char bus_id[32];
  std::snprintf(bus_id, sizeof bus_id, "%08X:%02X:00.0", 0u, (index + 1) & 0xFFu);
  return bus_id;
}

// The original fake: FAKE_NVML_UUIDS (comma-separated, empty = none) or FAKECUDA_DEVICE_COUNT
// devices of FAKECUDA_TOTAL_BYTES, all healthy, read afresh on every call.
std::shared_ptr<const State> StateFromEnvironment() {
  auto state = std::make_shared<State>();
  std::vector<std::string> uuids;
  if (const char* list = std::getenv("FAKE_NVML_UUIDS"); list != nullptr) {
    std::string_view rest(list);
    while (!rest.empty()) {
      const size_t comma = rest.find(',');
      uuids.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
      if (rest.empty()) uuids.emplace_back();  // "a," is two devices, the second nameless
    }
  } else {
    const char* count = std::getenv("FAKECUDA_DEVICE_COUNT");
    const int devices = count != nullptr ? std::atoi(count) : 2;
    for (int index = 0; index < devices; ++index) {
      uuids.push_back(GeneratedUuid(static_cast<unsigned>(index)));
    }
  }
  const char* total = std::getenv("FAKECUDA_TOTAL_BYTES");
  for (unsigned index = 0; index < uuids.size(); ++index) {
    Device device;
    device.uuid = uuids[index];
    device.bus_id = GeneratedBusId(index);
    if (total != nullptr) device.memory_total = std::strtoull(total, nullptr, 10);
    state->devices.push_back(std::move(device));
  }
  return state;
}

// Rejects keys a scenario does not know, so a misspelt fault is an error and not a healthy GPU.
void CheckKeys(const Json& object, std::initializer_list<std::string_view> known,
               const std::string& where) {
  if (!object.is_object()) throw std::runtime_error(where + " is not an object");
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      throw std::runtime_error(where + " has unknown key \"" + key + "\"");
    }
  }
}

template <typename T>
void Read(const Json& object, const char* key, T& out) {
  if (auto it = object.find(key); it != object.end()) out = it->get<T>();
}

NvLink ParseLink(const Json& json, const std::string& where) {
  CheckKeys(json, {"active", "replay", "recovery", "crc", "crc_flit", "crc_data"}, where);
  NvLink link;
  Read(json, "active", link.active);
  Read(json, "replay", link.replay);
  Read(json, "recovery", link.recovery);
  Read(json, "crc", link.crc_flit);  // "crc" is the flit CRC counter, the one DCGM reports first
  Read(json, "crc_flit", link.crc_flit);
  Read(json, "crc_data", link.crc_data);
  return link;
}

Device ParseDevice(const Json& json, unsigned index) {
  const std::string where = "devices[" + std::to_string(index) + "]";
  CheckKeys(
      json,
      {"uuid", "bus_id", "name", "memory_total", "remapped_rows", "ecc", "retired_pages", "nvlink",
       "pcie", "recovery_action", "lost", "hang_ms", "hang_calls", "unsupported", "errors"},
      where);
  Device device;
  device.uuid = GeneratedUuid(index);
  device.bus_id = GeneratedBusId(index);
  Read(json, "uuid", device.uuid);
  Read(json, "bus_id", device.bus_id);
  Read(json, "name", device.name);
  Read(json, "memory_total", device.memory_total);
  if (auto it = json.find("remapped_rows"); it != json.end()) {
    CheckKeys(*it, {"corr", "unc", "pending", "failure"}, where + ".remapped_rows");
    Read(*it, "corr", device.remapped_corr);
    Read(*it, "unc", device.remapped_unc);
    Read(*it, "pending", device.remap_pending);
    Read(*it, "failure", device.remap_failure);
  }
  if (auto it = json.find("ecc"); it != json.end()) {
    CheckKeys(*it,
              {"volatile_corrected", "volatile_uncorrected", "aggregate_corrected",
               "aggregate_uncorrected"},
              where + ".ecc");
    Read(*it, "volatile_corrected", device.ecc_volatile_corrected);
    Read(*it, "volatile_uncorrected", device.ecc_volatile_uncorrected);
    Read(*it, "aggregate_corrected", device.ecc_aggregate_corrected);
    Read(*it, "aggregate_uncorrected", device.ecc_aggregate_uncorrected);
  }
  if (auto it = json.find("retired_pages"); it != json.end()) {
    CheckKeys(*it, {"sbe", "dbe", "pending"}, where + ".retired_pages");
    Read(*it, "sbe", device.retired_sbe);
    Read(*it, "dbe", device.retired_dbe);
    Read(*it, "pending", device.retired_pending);
  }
  if (auto it = json.find("nvlink"); it != json.end()) {
    for (size_t link = 0; link < it->size(); ++link) {
      device.nvlinks.push_back(
          ParseLink(it->at(link), where + ".nvlink[" + std::to_string(link) + "]"));
    }
  }
  if (auto it = json.find("pcie"); it != json.end()) {
    CheckKeys(*it, {"cur_gen", "max_gen", "cur_width", "max_width", "replay"}, where + ".pcie");
    Read(*it, "cur_gen", device.pcie_cur_gen);
    Read(*it, "max_gen", device.pcie_max_gen);
    Read(*it, "cur_width", device.pcie_cur_width);
    Read(*it, "max_width", device.pcie_max_width);
    Read(*it, "replay", device.pcie_replay);
  }
  Read(json, "recovery_action", device.recovery_action);
  Read(json, "lost", device.lost);
  Read(json, "hang_ms", device.hang_ms);
  Read(json, "hang_calls", device.hang_calls);
  Read(json, "unsupported", device.unsupported);
  Read(json, "errors", device.errors);
  return device;
}

std::shared_ptr<const State> ParseState(const std::string& text) {
  const Json json = Json::parse(text);
  CheckKeys(json, {"devices", "xid_events", "init_hang_ms"}, "scenario");
  auto state = std::make_shared<State>();
  Read(json, "init_hang_ms", state->init_hang_ms);
  if (auto it = json.find("devices"); it != json.end()) {
    for (size_t index = 0; index < it->size(); ++index) {
      state->devices.push_back(ParseDevice(it->at(index), static_cast<unsigned>(index)));
    }
  }
  if (auto it = json.find("xid_events"); it != json.end()) {
    for (size_t index = 0; index < it->size(); ++index) {
      const Json& item = it->at(index);
      CheckKeys(item, {"uuid", "xid", "seq"}, "xid_events[" + std::to_string(index) + "]");
      XidEvent event;
      event.seq = static_cast<long long>(index) + 1;  // the position, unless given
      Read(item, "uuid", event.uuid);
      Read(item, "xid", event.xid);
      Read(item, "seq", event.seq);
      state->xid_events.push_back(std::move(event));
    }
  }
  return state;
}

// The scenario last parsed and the identity of the file it came from.
struct Cache {
  std::mutex mutex;
  std::string path;
  dev_t device = 0;
  ino_t inode = 0;
  off_t size = -1;
  timespec mtime{};
  std::shared_ptr<const State> state = std::make_shared<State>();
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // never destroyed: calls may outlive static destruction
  return *cache;
}

std::shared_ptr<const State> StateFromScenario(const std::string& path) {
  Cache& cache = TheCache();
  std::lock_guard lock(cache.mutex);
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "fake NVML: cannot stat scenario %s; keeping the last one\n",
                 path.c_str());
    return cache.state;
  }
  const bool same = path == cache.path && info.st_dev == cache.device &&
                    info.st_ino == cache.inode && info.st_size == cache.size &&
                    info.st_mtim.tv_sec == cache.mtime.tv_sec &&
                    info.st_mtim.tv_nsec == cache.mtime.tv_nsec;
  if (same) return cache.state;
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  try {
    cache.state = ParseState(text.str());
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fake NVML: scenario %s: %s; keeping the last one\n", path.c_str(),
                 error.what());
    return cache.state;  // not remembered as read: the next call tries again
  }
  cache.path = path;
  cache.device = info.st_dev;
  cache.inode = info.st_ino;
  cache.size = info.st_size;
  cache.mtime = info.st_mtim;
  return cache.state;
}

}  // namespace

std::shared_ptr<const State> CurrentState() {
  const char* scenario = std::getenv("FAKE_NVML_SCENARIO");
  if (scenario == nullptr || *scenario == '\0') return StateFromEnvironment();
  return StateFromScenario(scenario);
}

bool HandleIndex(nvmlDevice_t device, const State& state, unsigned* index) {
  const auto value = reinterpret_cast<std::uintptr_t>(device);
  if (value == 0 || value > state.devices.size()) return false;
  *index = static_cast<unsigned>(value - 1);
  return true;
}

nvmlDevice_t HandleOf(unsigned index) {
  return reinterpret_cast<nvmlDevice_t>(std::uintptr_t{index} + 1);
}

nvmlReturn_t InjectedError(const Device& device, const std::string& call) {
  if (device.unsupported.count(call) != 0) return kErrorNotSupported;
  if (auto it = device.errors.find(call); it != device.errors.end()) return it->second;
  return NVML_SUCCESS;
}

DeviceCall BeginDeviceCall(nvmlDevice_t handle, const char* call) {
  DeviceCall result;
  result.state = CurrentState();
  if (!HandleIndex(handle, *result.state, &result.index)) {
    result.code = NVML_ERROR_INVALID_ARGUMENT;
    return result;
  }
  result.device = &result.state->devices[result.index];
  const bool hangs =
      result.device->hang_calls.empty() || result.device->hang_calls.count(call) != 0;
  if (result.device->hang_ms > 0 && hangs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(result.device->hang_ms));
  }
  if (result.device->lost) {
    result.code = kErrorGpuIsLost;
    return result;
  }
  result.code = InjectedError(*result.device, call);
  return result;
}

}  // namespace fake_nvml
