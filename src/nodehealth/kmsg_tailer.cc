// KernelLogTailer (kmsg.h): the file-reading half of the kernel log source.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "nodehealth/kmsg.h"

namespace quotient::nodehealth {
namespace {

std::string Errno(const std::string& what, int error) { return what + ": " + std::strerror(error); }

}  // namespace

KernelLogTailer::KernelLogTailer(std::string path, TailPosition position, TailOptions options)
    : path_(std::move(path)), position_(position), options_(options) {}

KernelLogTailer::~KernelLogTailer() {
  if (stream_fd_ >= 0) ::close(stream_fd_);
}

Result<TailBatch> KernelLogTailer::Poll() {
  struct stat info {};
  if (stream_fd_ < 0 && ::stat(path_.c_str(), &info) != 0) {
    return Result<TailBatch>::Error(Errno("kernel log " + path_, errno));
  }
  if (stream_fd_ < 0 && S_ISREG(info.st_mode)) return PollFile(static_cast<uint64_t>(info.st_size));
  return PollStream();
}

Result<TailBatch> KernelLogTailer::PollFile(uint64_t size) {
  TailBatch batch;
  if (!position_.offset) position_.offset = options_.new_log_from_end ? size : 0;
  if (size < *position_.offset) {
    // Rotated or truncated: what is there now is new. Sequence numbers may restart with it.
    batch.rewound = true;
    position_ = TailPosition{0, std::nullopt};
  }
  if (size == *position_.offset) return batch;
  const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Result<TailBatch>::Error(Errno("kernel log " + path_, errno));
  const uint64_t wanted = std::min<uint64_t>(size - *position_.offset, options_.max_bytes_per_poll);
  std::string buffer(static_cast<size_t>(wanted), '\0');
  size_t filled = 0;
  while (filled < buffer.size()) {
    const ssize_t n = ::pread(fd, buffer.data() + filled, buffer.size() - filled,
                              static_cast<off_t>(*position_.offset + filled));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return Result<TailBatch>::Error(Errno("kernel log " + path_, error));
    }
    if (n == 0) break;  // shrank while we read: the next poll notices
    filled += static_cast<size_t>(n);
  }
  ::close(fd);
  buffer.resize(filled);
  size_t consumed = ConsumeLines(buffer, batch);
  if (consumed == 0 && filled == options_.max_bytes_per_poll) {
    // One line longer than a whole poll's budget: take it as it is rather than stall on it.
    ConsumeLine(buffer, batch);
    consumed = filled;
  }
  // A partial last line stays unread: the next poll (or the next agent) reads it whole.
  *position_.offset += consumed;
  return batch;
}

Result<TailBatch> KernelLogTailer::PollStream() {
  TailBatch batch;
  if (stream_fd_ < 0) {
    stream_fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (stream_fd_ < 0) return Result<TailBatch>::Error(Errno("kernel log " + path_, errno));
    // /dev/kmsg starts at its oldest record; SEEK_END skips to new ones (not for FIFOs).
    if (!position_.last_seq && options_.new_log_from_end) ::lseek(stream_fd_, 0, SEEK_END);
  }
  // /dev/kmsg returns one record per read, and EINVAL when the buffer cannot hold it.
  std::string chunk(16384, '\0');
  size_t total = 0;
  while (total < options_.max_bytes_per_poll) {
    const ssize_t n = ::read(stream_fd_, chunk.data(), chunk.size());
    if (n > 0) {
      total += static_cast<size_t>(n);
      stream_partial_.append(chunk.data(), static_cast<size_t>(n));
      const size_t consumed = ConsumeLines(stream_partial_, batch);
      stream_partial_.erase(0, consumed);
      continue;
    }
    if (n == 0) break;  // a FIFO without a writer
    if (errno == EINTR) continue;
    if (errno == EAGAIN) break;
    // EPIPE: the ring buffer overwrote records we had not read; the next record's sequence
    // number tells how many, and ConsumeLine counts them.
    if (errno == EPIPE) continue;
    return Result<TailBatch>::Error(Errno("kernel log " + path_, errno));
  }
  return batch;
}

size_t KernelLogTailer::ConsumeLines(std::string_view buffer, TailBatch& batch) {
  size_t consumed = 0;
  for (size_t newline = buffer.find('\n'); newline != std::string_view::npos;
       newline = buffer.find('\n', consumed)) {
    ConsumeLine(buffer.substr(consumed, newline - consumed), batch);
    consumed = newline + 1;
  }
  return consumed;
}

void KernelLogTailer::ConsumeLine(std::string_view line, TailBatch& batch) {
  std::optional<LogRecord> record = ParseLogLine(line);
  if (!record) return;
  ++batch.lines;
  if (record->seq) {
    const uint64_t seq = *record->seq;
    if (position_.last_seq && seq <= *position_.last_seq) return;  // seen before a restart
    if (position_.last_seq && seq > *position_.last_seq + 1) {
      batch.lost_records += static_cast<int64_t>(seq - *position_.last_seq - 1);
    }
    position_.last_seq = seq;
  }
  for (KernelEvent& event : parser_.Feed(record->message)) {
    event.seq = record->seq;
    batch.events.push_back(std::move(event));
  }
}

}  // namespace quotient::nodehealth
