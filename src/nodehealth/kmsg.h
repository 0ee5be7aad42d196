// The kernel log as a source of GPU and NIC faults: NVIDIA XID and NVSwitch SXid lines, "fallen
// off the bus", and mlx5 fatal patterns (../shared/docs/gpu-isolation-and-health.md section 2.1).
//
// Two layers. Parsing is pure: ParseLogLine reads one line of /dev/kmsg's record format
// ("<pri>,<seq>,<ts_usec>,<flags>;<message>") or of plain dmesg/syslog text, and
// KernelLogParser turns messages into KernelEvents, remembering the previous lines because the
// driver spreads "fallen off the bus" over several. KernelLogTailer is the one part that reads:
// it follows a path (a regular file, or /dev/kmsg and other streams) from a remembered position,
// across partial lines and sequence gaps, and is not thread-safe (one poller owns it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "nodehealth/observations.h"

namespace quotient::nodehealth {

struct LogRecord {
  std::optional<uint64_t> seq;      // /dev/kmsg records only
  std::optional<uint64_t> ts_usec;  // /dev/kmsg records only
  std::string message;              // \xNN escapes decoded: may hold several lines
};

// One line of the log; nothing for the " KEY=value" dictionary lines that follow a kmsg record.
std::optional<LogRecord> ParseLogLine(std::string_view line);

class KernelLogParser {
 public:
  // The events in one message (one record, or one dmesg line).
  std::vector<KernelEvent> Feed(std::string_view message);

 private:
  std::optional<KernelEvent> ParseLine(std::string_view line);

  // "NVRM: The NVIDIA GPU 0000:b3:00.0" comes lines before "... fallen off the bus": the
  // address of the last GPU a line named, and how many lines ago.
  std::string recent_gpu_bdf_;
  int lines_since_gpu_bdf_ = 0;
};

// Where a tail stands: persisted in the agent's state (state.h) so a restart resumes.
struct TailPosition {
  std::optional<uint64_t> offset;    // regular files: bytes consumed; absent = not started
  std::optional<uint64_t> last_seq;  // the last kmsg sequence number seen
};

struct TailOptions {
  bool new_log_from_end = false;  // with no position yet: skip what is already there
  size_t max_bytes_per_poll = size_t{4} << 20;
};

struct TailBatch {
  std::vector<KernelEvent> events;
  int64_t lines = 0;
  int64_t lost_records = 0;  // sequence numbers skipped: records the ring buffer overwrote
  bool rewound = false;      // the file shrank (rotated or truncated): read again from its start
};

class KernelLogTailer {
 public:
  KernelLogTailer(std::string path, TailPosition position, TailOptions options = {});
  ~KernelLogTailer();
  KernelLogTailer(const KernelLogTailer&) = delete;
  KernelLogTailer& operator=(const KernelLogTailer&) = delete;

  // Everything new since the last poll. A regular file is read from the stored offset up to its
  // last complete line; a stream (/dev/kmsg, a FIFO) is kept open and read without blocking.
  Result<TailBatch> Poll();
  const TailPosition& position() const { return position_; }

 private:
  Result<TailBatch> PollFile(uint64_t size);
  Result<TailBatch> PollStream();
  void ConsumeLine(std::string_view line, TailBatch& batch);
  // Whole lines out of `buffer`; returns the bytes consumed (up to and including the last '\n').
  size_t ConsumeLines(std::string_view buffer, TailBatch& batch);

  std::string path_;
  TailPosition position_;
  TailOptions options_;
  KernelLogParser parser_;
  int stream_fd_ = -1;
  std::string stream_partial_;  // a stream's bytes after its last '\n'
};

}  // namespace quotient::nodehealth
