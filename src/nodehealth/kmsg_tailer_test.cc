// The kernel-log tailer over a fake log: a regular file the test appends to (as the agent reads
// a copy of the kernel log or /var/log/kern.log) and a FIFO standing for /dev/kmsg's stream.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodehealth/kmsg.h"
#include "nodehealth/test_support.h"

namespace quotient::nodehealth {
namespace {

using testing::AppendFile;
using testing::ScratchDir;
using testing::WriteFile;

std::string Record(uint64_t seq, std::string_view message) {
  return "4," + std::to_string(seq) + ",1000,-;" + std::string(message) + "\n";
}

const char kXid79[] = "NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.";
const char kXid48[] = "NVRM: Xid (PCI:0000:3b:00): 48, An uncorrectable double bit error";

TEST(NodeHealthKmsgTailerTest, ReadsNewLinesAndRemembersWhereItStopped) {
  ScratchDir dir;
  const auto log = dir.path() / "kmsg";
  WriteFile(log, Record(1, "boot") + Record(2, kXid79));
  KernelLogTailer tailer(log.string(), TailPosition{});
  Result<TailBatch> first = tailer.Poll();
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(first->events.size(), 1u);
  EXPECT_EQ(first->events[0].code, 79);
  EXPECT_EQ(first->events[0].seq, 2u);
  EXPECT_EQ(tailer.position().last_seq, 2u);
  // Nothing new: nothing again.
  EXPECT_TRUE(tailer.Poll()->events.empty());
  AppendFile(log, Record(3, kXid48));
  Result<TailBatch> second = tailer.Poll();
  ASSERT_EQ(second->events.size(), 1u);
  EXPECT_EQ(second->events[0].code, 48);
}

TEST(NodeHealthKmsgTailerTest, APartialLineWaitsForItsEnd) {
  ScratchDir dir;
  const auto log = dir.path() / "kmsg";
  const std::string line = Record(7, kXid79);
  WriteFile(log, line.substr(0, 30));
  KernelLogTailer tailer(log.string(), TailPosition{});
  EXPECT_TRUE(tailer.Poll()->events.empty());
  EXPECT_EQ(tailer.position().offset, 0u);  // the half line is not consumed
  AppendFile(log, line.substr(30));
  Result<TailBatch> batch = tailer.Poll();
  ASSERT_EQ(batch->events.size(), 1u);
  EXPECT_EQ(batch->events[0].code, 79);
  EXPECT_EQ(tailer.position().offset, line.size());
}

TEST(NodeHealthKmsgTailerTest, ARestartedAgentResumesFromThePersistedPosition) {
  ScratchDir dir;
  const auto log = dir.path() / "kmsg";
  WriteFile(log, Record(1, kXid79));
  TailPosition saved;
  {
    KernelLogTailer tailer(log.string(), TailPosition{});
    ASSERT_EQ(tailer.Poll()->events.size(), 1u);
    saved = tailer.position();
  }
  AppendFile(log, Record(2, kXid48));
  KernelLogTailer restarted(log.string(), saved);
  Result<TailBatch> batch = restarted.Poll();
  ASSERT_EQ(batch->events.size(), 1u);  // XID 79 is not reported twice
  EXPECT_EQ(batch->events[0].code, 48);
}

TEST(NodeHealthKmsgTailerTest, ASequenceGapCountsTheLostRecords) {
  ScratchDir dir;
  const auto log = dir.path() / "kmsg";
  WriteFile(log, Record(10, "a") + Record(11, "b") + Record(15, kXid79));
  KernelLogTailer tailer(log.string(), TailPosition{});
  Result<TailBatch> batch = tailer.Poll();
  EXPECT_EQ(batch->lost_records, 3);  // 12, 13 and 14 were overwritten
  EXPECT_EQ(batch->events.size(), 1u);
}

TEST(NodeHealthKmsgTailerTest, RecordsAlreadySeenAreSkippedBySequence) {
  // /dev/kmsg reopened after a restart replays the ring buffer from its oldest record.
  ScratchDir dir;
  const auto log = dir.path() / "kmsg";
  WriteFile(log, Record(1, kXid79) + Record(2, kXid48));
  KernelLogTailer tailer(log.string(), TailPosition{std::nullopt, 1});
  Result<TailBatch> batch = tailer.Poll();
  ASSERT_EQ(batch->events.size(), 1u);
  EXPECT_EQ(batch->events[0].code, 48);
  EXPECT_EQ(batch->lost_records, 0);
}

TEST(NodeHealthKmsgTailerTest, ATruncatedFileIsReadAgainFromItsStart) {
  ScratchDir dir;
  const auto log = dir.path() / "kern.log";
  WriteFile(log, std::string("padding line that makes the old file longer\n") + kXid48 + "\n");
  KernelLogTailer tailer(log.string(), TailPosition{});
  ASSERT_EQ(tailer.Poll()->events.size(), 1u);
  WriteFile(log, std::string(kXid79) + "\n");  // rotated: a new, shorter file
  Result<TailBatch> batch = tailer.Poll();
  EXPECT_TRUE(batch->rewound);
  ASSERT_EQ(batch->events.size(), 1u);
  EXPECT_EQ(batch->events[0].code, 79);
}

TEST(NodeHealthKmsgTailerTest, ANewLogCanBeFollowedFromItsEnd) {
  ScratchDir dir;
  const auto log = dir.path() / "kern.log";
  WriteFile(log, std::string(kXid48) + "\n");
  TailOptions options;
  options.new_log_from_end = true;
  KernelLogTailer tailer(log.string(), TailPosition{}, options);
  EXPECT_TRUE(tailer.Poll()->events.empty());
  AppendFile(log, std::string(kXid79) + "\n");
  ASSERT_EQ(tailer.Poll()->events.size(), 1u);
}

TEST(NodeHealthKmsgTailerTest, APollReadsAtMostItsBudgetAndTheRestNextTime) {
  ScratchDir dir;
  const auto log = dir.path() / "kern.log";
  const std::string line = std::string(kXid79) + "\n";
  WriteFile(log, line + line + line);
  TailOptions options;
  options.max_bytes_per_poll = line.size() + 10;  // one line and a bit
  KernelLogTailer tailer(log.string(), TailPosition{}, options);
  EXPECT_EQ(tailer.Poll()->events.size(), 1u);
  EXPECT_EQ(tailer.Poll()->events.size(), 1u);
  EXPECT_EQ(tailer.Poll()->events.size(), 1u);
  EXPECT_EQ(tailer.Poll()->events.size(), 0u);
}

TEST(NodeHealthKmsgTailerTest, AStreamIsReadWithoutBlockingAcrossPartialRecords) {
  ScratchDir dir;
  const auto fifo = dir.path() / "kmsg.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  KernelLogTailer tailer(fifo.string(), TailPosition{});
  ASSERT_TRUE(tailer.Poll().ok());  // opens the read end; no writer yet
  const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  const std::string line = Record(5, kXid79) + Record(8, kXid48);
  const size_t split = line.size() - 20;
  ASSERT_EQ(::write(writer, line.data(), split), static_cast<ssize_t>(split));
  Result<TailBatch> first = tailer.Poll();
  ASSERT_TRUE(first.ok()) << first.message();
  ASSERT_EQ(first->events.size(), 1u);
  EXPECT_EQ(first->events[0].code, 79);
  ASSERT_EQ(::write(writer, line.data() + split, 20), 20);
  Result<TailBatch> second = tailer.Poll();
  ASSERT_EQ(second->events.size(), 1u);
  EXPECT_EQ(second->events[0].code, 48);
  EXPECT_EQ(second->lost_records, 2);  // 6 and 7
  ::close(writer);
}

TEST(NodeHealthKmsgTailerTest, AMissingLogIsAnErrorNamingThePath) {
  KernelLogTailer tailer("/nonexistent/kmsg", TailPosition{});
  Result<TailBatch> batch = tailer.Poll();
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.message(), "kernel log /nonexistent/kmsg: No such file or directory");
}

}  // namespace
}  // namespace quotient::nodehealth
