// What the node agent saw in one poll: the input of Evaluate (evaluate.h).
//
// These are plain values filled by the parts that do I/O: the NVML reads (src/nvml, another
// engineer's), the kernel-log tailer (kmsg.h) and the InfiniBand sysfs reader (infiniband.h).
// Every reading NVML may not support on a given GPU or driver is optional: absent means "not
// read", never zero. Counters are the raw cumulative values the hardware reports; the evaluation
// turns them into deltas and rates against the persisted state.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quotient::nodehealth {

// NVML_GPU_RECOVERY_ACTION_* (field 230) and the "to ..." of an XID 154 line.
enum class RecoveryAction { kNone, kGpuReset, kNodeReboot, kDrainP2p, kDrainAndReset };

// nvmlDeviceGetRemappedRows: counts of remapped rows, and the two flags that matter.
struct RemappedRows {
  int64_t correctable = 0;
  int64_t uncorrectable = 0;
  bool pending = false;  // a reset is needed to actually remap
  bool failure = false;  // a remap failed: the bank is out of spare rows
};

// nvmlDeviceGetTotalEccErrors, each counter on its own (a driver may answer some and not
// others); volatile counts restart at driver load, aggregate ones cover the device's life.
struct EccCounts {
  std::optional<int64_t> volatile_corrected;
  std::optional<int64_t> volatile_uncorrected;
  std::optional<int64_t> aggregate_corrected;
  std::optional<int64_t> aggregate_uncorrected;
};

// nvmlDeviceGetRetiredPages_v2 / ...PendingStatus (page retirement, before Ampere).
struct RetiredPages {
  std::optional<int64_t> single_bit;
  std::optional<int64_t> double_bit;
  std::optional<bool> pending;
};

// One NVLink: nvmlDeviceGetNvLinkState and the DL error counters (absent when unsupported).
struct NvlinkReading {
  int link = 0;
  bool active = false;
  std::optional<int64_t> replay;
  std::optional<int64_t> recovery;
  std::optional<int64_t> crc;  // CRC flit + CRC data errors
};

struct PcieReading {
  std::optional<int> current_gen;
  std::optional<int> max_gen;
  std::optional<int> current_width;
  std::optional<int> max_width;
  std::optional<int64_t> replay;  // nvmlDeviceGetPcieReplayCounter
  // Whether the GPU was busy: idle GPUs lower their link generation to save power, so a
  // generation below the maximum means something only under load. Unknown: not judged.
  std::optional<bool> under_load;
};

struct GpuObservation {
  int index = 0;
  std::string uuid;
  std::string bus_id;     // NVML's form ("00000000:3B:00.0"); any PCI form is accepted
  bool lost = false;      // a call returned NVML_ERROR_GPU_IS_LOST
  std::vector<int> xids;  // XID events NVML delivered since the last poll
  std::optional<RemappedRows> remapped_rows;
  EccCounts ecc;
  RetiredPages retired_pages;
  std::vector<NvlinkReading> nvlinks;  // none: no NVLink
  PcieReading pcie;
  std::optional<RecoveryAction> recovery_action;
};

enum class NvmlState {
  kOk,
  kNotInstalled,  // no libnvidia-ml.so.1: a node without GPUs, or a broken driver install
  kInitFailed,    // nvmlInit_v2 failed
  kTimedOut,      // a call ran past its deadline (the watchdog gave up on it)
};

struct NvmlStatus {
  NvmlState state = NvmlState::kOk;
  std::string call;    // the call that failed or hung, e.g. "nvmlDeviceGetRemappedRows"
  std::string detail;  // nvmlErrorString, or the deadline
};

enum class KernelEventKind {
  kXid,           // "NVRM: Xid (PCI:...): <code>, ..."
  kSxid,          // "nvidia-nvswitchN: SXid (PCI:...): <code>, Fatal|Non-fatal, ..."
  kFallenOffBus,  // "... GPU ... has fallen off the bus" without an Xid
  kNicFatal,      // mlx5_core fatal patterns (health compromised, unrecoverable error, ...)
};

// One fault line from the kernel log (kmsg.h).
struct KernelEvent {
  KernelEventKind kind = KernelEventKind::kXid;
  std::string bdf;  // normalised "dddd:bb:dd" (NormalizeBdf), empty if the line names none
  int code = 0;     // XID or SXid number
  // Fatal/non-fatal as the line states it (SXid, NVLink5 XIDs 144-150); absent when it does not.
  std::optional<bool> fatal;
  std::optional<RecoveryAction> recovery_action;  // XID 154: the action it changed to
  std::string text;                               // the message after the code
  std::optional<uint64_t> seq;                    // /dev/kmsg sequence number
};

// One InfiniBand port from sysfs (infiniband.h).
struct IbPortReading {
  std::string device;  // mlx5_0
  int port = 1;
  int state = 0;  // 4 = ACTIVE
  std::string state_name;
  int phys_state = 0;  // 5 = LinkUp
  std::string phys_state_name;
  std::optional<int64_t> rate_mbps;  // "400 Gb/sec (4X NDR)" = 400000
  std::string rate_text;
  std::string link_layer;
  std::optional<int64_t> link_downed;   // 8-bit saturating PMA counter
  std::optional<int64_t> symbol_error;  // 16-bit saturating PMA counter
};

struct NodeObservation {
  // From the node's inventory (a label): how many GPUs, NVLinks per GPU and what IB rate it
  // should have. Absent: the evaluation compares against what it saw earlier this boot.
  std::optional<int> expected_gpu_count;
  std::optional<int> expected_nvlinks_per_gpu;
  std::optional<int64_t> expected_ib_rate_gbps;

  NvmlStatus nvml;
  std::vector<GpuObservation> gpus;

  bool kernel_log_readable = true;
  int64_t kernel_log_lost_records = 0;  // sequence gaps the tailer reported
  std::vector<KernelEvent> kernel_events;

  bool infiniband_readable = true;
  std::vector<IbPortReading> ib_ports;

  // When the controller's validation last passed on this node (seconds since the epoch, as the
  // controller records it on the Node). Newer than the one in the state: all faults clear.
  std::optional<int64_t> validation_passed_at_s;
};

}  // namespace quotient::nodehealth
