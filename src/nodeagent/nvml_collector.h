// The NVML half of a node agent poll: every GPU's health reading and the XID events since the
// last poll, each NVML call under a deadline (nvml/deadline.h), turned into the evaluation's
// observations (nodehealth/observations.h).
//
// NVML is loaded on first use and loaded again after it failed (a driver being installed or
// reloaded); a node without libnvidia-ml.so.1 reports kNotInstalled, every poll, cheaply. A call
// that runs past the deadline makes the poll kTimedOut (GpuDriverUnresponsive): the GPUs read
// before it are kept, the rest are left out.
//
// Thread safety: one thread polls.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nodehealth/observations.h"
#include "nvml/deadline.h"
#include "nvml/gpu_health.h"
#include "nvml/nvml.h"
#include "nvml/xid_events.h"

namespace quotient::nodeagent {

struct NvmlCollectorOptions {
  std::string library = "libnvidia-ml.so.1";
  std::chrono::milliseconds deadline{
      5000};  // per NVML call (a device's whole reading counts as one)
};

struct NvmlPoll {
  nodehealth::NvmlStatus status;
  std::vector<nodehealth::GpuObservation> gpus;
  // The calls this driver cannot answer ("nvmlDeviceGetRemappedRows" ...), for the GPU check
  // script and the log; each once, sorted.
  std::vector<std::string> not_supported;
  // The calls that failed for another reason, by GPU index: a reading with a hole that is not
  // "unsupported" must not pass `quotient validate` (validation.h).
  std::map<int, std::vector<nvml::NvmlCallError>> errors;
};

class NvmlCollector {
 public:
  explicit NvmlCollector(NvmlCollectorOptions options);
  ~NvmlCollector();
  NvmlCollector(const NvmlCollector&) = delete;
  NvmlCollector& operator=(const NvmlCollector&) = delete;

  NvmlPoll Poll();

 private:
  bool EnsureLoaded(NvmlPoll& poll);
  // Adds the XID events waiting in the event set to the GPUs they name.
  void DrainXids(NvmlPoll& poll);

  // The XID event set and the NVML it reads through, owned together: whichever thread lets go
  // last (this one, or a worker that ran an abandoned call) frees the set before NVML.
  struct XidSource {
    std::shared_ptr<nvml::Nvml> nvml;
    std::unique_ptr<nvml::XidEventWatcher> watcher;
    ~XidSource() { watcher.reset(); }
  };

  NvmlCollectorOptions options_;
  nvml::DeadlineRunner runner_;
  // Shared with calls that may be abandoned inside NVML: never unloaded under them.
  std::shared_ptr<nvml::Nvml> nvml_;
  std::shared_ptr<XidSource> xids_;
};

// nvml::GpuHealthReading in the evaluation's terms (pure; tested on its own).
nodehealth::GpuObservation ToObservation(const nvml::GpuHealthReading& reading);

}  // namespace quotient::nodeagent
