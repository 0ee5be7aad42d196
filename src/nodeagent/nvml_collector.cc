#include "nodeagent/nvml_collector.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace quotient::nodeagent {

namespace {

using nodehealth::NvmlState;

// Events read per poll at most: a storm of XIDs must not keep a poll from ending.
constexpr int kMaxEventsPerPoll = 256;

template <typename T>
std::optional<int64_t> Signed(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<int64_t>(*v);
}

template <typename T>
std::optional<int> Small(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<int>(*v);
}

nodehealth::RecoveryAction ToAction(nvml::GpuRecoveryAction action) {
  switch (action) {
    case nvml::GpuRecoveryAction::kNone:
      return nodehealth::RecoveryAction::kNone;
    case nvml::GpuRecoveryAction::kGpuReset:
      return nodehealth::RecoveryAction::kGpuReset;
    case nvml::GpuRecoveryAction::kNodeReboot:
      return nodehealth::RecoveryAction::kNodeReboot;
    case nvml::GpuRecoveryAction::kDrainP2p:
      return nodehealth::RecoveryAction::kDrainP2p;
    case nvml::GpuRecoveryAction::kDrainAndReset:
      return nodehealth::RecoveryAction::kDrainAndReset;
  }
  // A value a newer driver adds: the strongest action we know, rather than none.
  return nodehealth::RecoveryAction::kNodeReboot;
}

nodehealth::NvmlStatus TimedOut(std::string call, std::chrono::milliseconds deadline) {
  return {NvmlState::kTimedOut, std::move(call),
          "no answer within " + std::to_string(deadline.count()) + " ms"};
}

}  // namespace

nodehealth::GpuObservation ToObservation(const nvml::GpuHealthReading& r) {
  nodehealth::GpuObservation o;
  o.index = static_cast<int>(r.index);
  o.uuid = r.uuid;
  o.bus_id = r.pci_bus_id.value_or("");
  o.lost = r.lost;
  if (r.remapped_rows) {
    o.remapped_rows =
        nodehealth::RemappedRows{r.remapped_rows->correctable, r.remapped_rows->uncorrectable,
                                 r.remapped_rows->pending, r.remapped_rows->failure_occurred};
  }
  o.ecc.volatile_corrected = Signed(r.ecc.volatile_corrected);
  o.ecc.volatile_uncorrected = Signed(r.ecc.volatile_uncorrected);
  o.ecc.aggregate_corrected = Signed(r.ecc.aggregate_corrected);
  o.ecc.aggregate_uncorrected = Signed(r.ecc.aggregate_uncorrected);
  o.retired_pages.single_bit = Signed(r.retired_pages.multiple_single_bit);
  o.retired_pages.double_bit = Signed(r.retired_pages.double_bit);
  o.retired_pages.pending = r.retired_pages.pending;
  if (r.nvlinks) {
    for (const nvml::NvLinkReading& link : *r.nvlinks) {
      nodehealth::NvlinkReading l;
      l.link = static_cast<int>(link.link);
      l.active = link.active;
      l.replay = Signed(link.replay_errors);
      l.recovery = Signed(link.recovery_errors);
      if (link.crc_flit_errors || link.crc_data_errors) {
        l.crc = static_cast<int64_t>(link.crc_flit_errors.value_or(0) +
                                     link.crc_data_errors.value_or(0));
      }
      o.nvlinks.push_back(l);
    }
  }
  o.pcie.current_gen = Small(r.pcie.current_generation);
  o.pcie.max_gen = Small(r.pcie.max_generation);
  o.pcie.current_width = Small(r.pcie.current_width);
  o.pcie.max_width = Small(r.pcie.max_width);
  o.pcie.replay = Signed(r.pcie.replay_count);
  if (r.recovery_action) o.recovery_action = ToAction(*r.recovery_action);
  return o;
}

NvmlCollector::NvmlCollector(NvmlCollectorOptions options) : options_(std::move(options)) {}

NvmlCollector::~NvmlCollector() = default;

bool NvmlCollector::EnsureLoaded(NvmlPoll& poll) {
  if (nvml_) return true;
  const std::string library = options_.library;
  auto loaded = runner_.Run(
      [library]() -> std::pair<std::shared_ptr<nvml::Nvml>, std::string> {
        Result<std::unique_ptr<nvml::Nvml>> nvml = nvml::Nvml::Load(library);
        if (!nvml.ok()) return {nullptr, nvml.message()};
        return {std::shared_ptr<nvml::Nvml>(std::move(nvml).value()), ""};
      },
      options_.deadline);
  if (!loaded.completed()) {
    poll.status = TimedOut("nvmlInit_v2", options_.deadline);
    return false;
  }
  auto& [nvml, error] = *loaded.value;
  if (!nvml) {
    const bool missing = error.find("not found") != std::string::npos;
    poll.status = {missing ? NvmlState::kNotInstalled : NvmlState::kInitFailed, "nvmlInit_v2",
                   error};
    return false;
  }
  nvml_ = nvml;
  // XID events: a driver without them still has its polled health.
  auto watcher = runner_.Run(
      [shared = nvml_]() -> std::shared_ptr<XidSource> {
        auto created = nvml::XidEventWatcher::Create(*shared);
        if (!created.ok()) return nullptr;
        auto source = std::make_shared<XidSource>();
        source->nvml = shared;
        source->watcher = std::move(created).value();
        return source;
      },
      options_.deadline);
  if (watcher.completed()) xids_ = *watcher.value;
  return true;
}

NvmlPoll NvmlCollector::Poll() {
  NvmlPoll poll;
  if (!EnsureLoaded(poll)) return poll;
  auto count = runner_.Run([shared = nvml_] { return shared->DeviceCount(); }, options_.deadline);
  if (!count.completed()) {
    poll.status = TimedOut("nvmlDeviceGetCount_v2", options_.deadline);
    return poll;
  }
  if (!count.value->ok()) {
    poll.status = {NvmlState::kInitFailed, "nvmlDeviceGetCount_v2", count.value->message()};
    return poll;
  }
  std::set<std::string> unsupported;
  for (unsigned i = 0; i < count.value->value(); ++i) {
    auto reading = runner_.Run([shared = nvml_, i] { return nvml::ReadGpuHealth(*shared, i); },
                               options_.deadline);
    if (!reading.completed()) {
      poll.status = TimedOut("GPU " + std::to_string(i) + " health", options_.deadline);
      return poll;
    }
    unsupported.insert(reading.value->not_supported.begin(), reading.value->not_supported.end());
    if (!reading.value->errors.empty()) poll.errors[static_cast<int>(i)] = reading.value->errors;
    poll.gpus.push_back(ToObservation(*reading.value));
  }
  poll.not_supported.assign(unsupported.begin(), unsupported.end());
  DrainXids(poll);
  return poll;
}

void NvmlCollector::DrainXids(NvmlPoll& poll) {
  if (!xids_) return;
  for (int n = 0; n < kMaxEventsPerPoll; ++n) {
    auto waited = runner_.Run(
        [source = xids_] { return source->watcher->Wait(std::chrono::milliseconds(0)); },
        options_.deadline);
    if (!waited.completed()) {
      poll.status = TimedOut("nvmlEventSetWait_v2", options_.deadline);
      return;
    }
    const nvml::XidWaitResult& result = *waited.value;
    if (result.kind == nvml::XidWaitResult::Kind::kGpuLost) {
      // The lost GPU is reported by its reading; the set is rebuilt over the devices left.
      runner_.Run([source = xids_] { return source->watcher->Recreate(); }, options_.deadline);
      return;
    }
    if (result.kind != nvml::XidWaitResult::Kind::kEvent) return;
    for (nodehealth::GpuObservation& gpu : poll.gpus) {
      if (gpu.uuid == result.event.uuid ||
          (result.event.uuid.empty() &&
           static_cast<unsigned>(gpu.index) == result.event.device_index)) {
        gpu.xids.push_back(static_cast<int>(result.event.xid));
        break;
      }
    }
  }
}

}  // namespace quotient::nodeagent
