#include "nvml/xid_events.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "nvml/fake_nvml_fixture.h"

namespace quotient::nvml {
namespace {

using std::chrono::milliseconds;
using Kind = XidWaitResult::Kind;

constexpr const char* kGpuA = "GPU-aaaaaaaa-0000-0000-0000-00000000000a";
constexpr const char* kGpuB = "GPU-bbbbbbbb-0000-0000-0000-00000000000b";

// Two GPUs, A and B, with the given "xid_events" list and extra JSON for B.
std::string TwoGpus(const std::string& events, const std::string& b_extra = "") {
  return std::string(R"({"devices": [{"uuid": ")") + kGpuA + R"("}, {"uuid": ")" + kGpuB + "\"" +
         (b_extra.empty() ? "" : ", " + b_extra) + "}], \"xid_events\": [" + events + "]}";
}

class XidEventsTest : public FakeNvmlTest {
 protected:
  void LoadAndWatch() {
    auto nvml = Nvml::Load(kFakeNvml);
    ASSERT_TRUE(nvml.ok()) << nvml.message();
    nvml_ = std::move(nvml).value();
    auto watcher = XidEventWatcher::Create(*nvml_);
    ASSERT_TRUE(watcher.ok()) << watcher.message();
    watcher_ = std::move(watcher).value();
  }

  // The XID of the next event, checking it is one (and from which GPU).
  void ExpectXid(const char* uuid, unsigned index, uint64_t xid) {
    const auto before = std::chrono::system_clock::now();
    const XidWaitResult result = watcher_->Wait(milliseconds(1000));
    ASSERT_EQ(result.kind, Kind::kEvent) << result.message;
    EXPECT_EQ(result.event.uuid, uuid);
    EXPECT_EQ(result.event.device_index, index);
    EXPECT_EQ(result.event.xid, xid);
    EXPECT_EQ(result.event.event_type, 0x8u);  // nvmlEventTypeXidCriticalError
    EXPECT_EQ(result.event.gpu_instance_id, 0xFFFFFFFFu);
    EXPECT_EQ(result.event.compute_instance_id, 0xFFFFFFFFu);
    EXPECT_GE(result.event.received_at, before);
    EXPECT_LE(result.event.received_at, std::chrono::system_clock::now());
  }

  void ExpectTimeout(milliseconds timeout = milliseconds(50)) {
    const XidWaitResult result = watcher_->Wait(timeout);
    EXPECT_EQ(result.kind, Kind::kTimeout) << "xid " << result.event.xid << " " << result.message;
  }

  std::unique_ptr<Nvml> nvml_;
  std::unique_ptr<XidEventWatcher> watcher_;
};

TEST_F(XidEventsTest, DeliversEventsInOrderEachOnce) {
  WriteScenario(TwoGpus(R"({"uuid": ")" + std::string(kGpuA) + R"(", "xid": 79, "seq": 1},
                           {"uuid": ")" +
                        kGpuB + R"(", "xid": 48, "seq": 2},
                           {"uuid": ")" +
                        kGpuA + R"(", "xid": 63, "seq": 3})"));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  EXPECT_EQ(watcher_->registered_uuids(), (std::vector<std::string>{kGpuA, kGpuB}));
  EXPECT_TRUE(watcher_->skipped_devices().empty());
  ExpectXid(kGpuA, 0, 79);
  ExpectXid(kGpuB, 1, 48);
  ExpectXid(kGpuA, 0, 63);
  ExpectTimeout();
}

TEST_F(XidEventsTest, WaitTimesOutWhenThereIsNoEvent) {
  WriteScenario(TwoGpus(""));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  const auto start = std::chrono::steady_clock::now();
  const XidWaitResult result = watcher_->Wait(milliseconds(100));
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(result.kind, Kind::kTimeout);
  EXPECT_TRUE(result.message.empty());
  EXPECT_GE(waited, milliseconds(100));  // it blocked for the timeout, not less
  EXPECT_LT(waited, milliseconds(2000));
}

TEST_F(XidEventsTest, EventsAddedByRewritingTheScenarioArriveOnceEach) {
  const std::string first = R"({"uuid": ")" + std::string(kGpuA) + R"(", "xid": 79, "seq": 1})";
  WriteScenario(TwoGpus(first));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  ExpectXid(kGpuA, 0, 79);
  WriteScenario(TwoGpus(first + R"(, {"uuid": ")" + kGpuB + R"(", "xid": 94, "seq": 2})"));
  ExpectXid(kGpuB, 1, 94);  // the new one only: 79 was delivered already
  ExpectTimeout();
}

TEST_F(XidEventsTest, AnEventWrittenDuringAWaitEndsIt) {
  WriteScenario(TwoGpus(""));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  std::thread writer([this] {
    std::this_thread::sleep_for(milliseconds(150));
    WriteScenario(TwoGpus(R"({"uuid": ")" + std::string(kGpuB) + R"(", "xid": 119})"));
  });
  const auto start = std::chrono::steady_clock::now();
  const XidWaitResult result = watcher_->Wait(milliseconds(5000));
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  ASSERT_EQ(result.kind, Kind::kEvent) << result.message;
  EXPECT_EQ(result.event.xid, 119u);
  EXPECT_EQ(result.event.uuid, kGpuB);
  EXPECT_GE(waited, milliseconds(100));
  EXPECT_LT(waited, milliseconds(2000));  // woke for the event, not at the 5 s timeout
}

TEST_F(XidEventsTest, LostGpuEndsTheWaitAndRecreateLeavesItOut) {
  WriteScenario(TwoGpus(""));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  WriteScenario(TwoGpus("", R"("lost": true)"));
  const XidWaitResult lost = watcher_->Wait(milliseconds(1000));
  EXPECT_EQ(lost.kind, Kind::kGpuLost);
  EXPECT_EQ(lost.message, "nvmlEventSetWait_v2: GPU is lost");

  const Status recreated = watcher_->Recreate();
  ASSERT_TRUE(recreated.ok()) << recreated.message();
  EXPECT_EQ(watcher_->registered_uuids(), std::vector<std::string>{kGpuA});
  ASSERT_EQ(watcher_->skipped_devices().size(), 1u);
  const NvmlCallError& skipped = watcher_->skipped_devices()[0];
  EXPECT_EQ(skipped.call, "nvmlDeviceGetHandleByIndex_v2");
  EXPECT_EQ(skipped.code, 15);
  EXPECT_EQ(skipped.message, "nvmlDeviceGetHandleByIndex_v2(device 1): GPU is lost");

  // The new set watches A; B's events (it is gone) do not come.
  WriteScenario(TwoGpus(R"({"uuid": ")" + std::string(kGpuB) + R"(", "xid": 79, "seq": 1},
                           {"uuid": ")" +
                            kGpuA + R"(", "xid": 48, "seq": 2})",
                        R"("lost": true)"));
  ExpectXid(kGpuA, 0, 48);
  ExpectTimeout();
}

TEST_F(XidEventsTest, DeviceWithoutXidEventsIsSkippedAndTheOthersWatched) {
  WriteScenario(TwoGpus(R"({"uuid": ")" + std::string(kGpuB) + R"(", "xid": 31, "seq": 1},
                           {"uuid": ")" +
                            kGpuA + R"(", "xid": 13, "seq": 2})",
                        R"("unsupported": ["nvmlDeviceRegisterEvents"])"));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  EXPECT_EQ(watcher_->registered_uuids(), std::vector<std::string>{kGpuA});
  ASSERT_EQ(watcher_->skipped_devices().size(), 1u);
  EXPECT_EQ(watcher_->skipped_devices()[0].message,
            "nvmlDeviceRegisterEvents(device 1): Not Supported");
  ExpectXid(kGpuA, 0, 13);
  ExpectTimeout();
}

TEST_F(XidEventsTest, EachEventSetGetsEveryListedEventOnce) {
  // The fake's rule (README): a new set also gets the events listed before it was created.
  WriteScenario(TwoGpus(R"({"uuid": ")" + std::string(kGpuA) + R"(", "xid": 79, "seq": 7})"));
  LoadAndWatch();
  ASSERT_NE(watcher_, nullptr);
  auto second = XidEventWatcher::Create(*nvml_);
  ASSERT_TRUE(second.ok()) << second.message();
  ExpectXid(kGpuA, 0, 79);
  ExpectTimeout();
  const XidWaitResult other = (*second)->Wait(milliseconds(1000));
  ASSERT_EQ(other.kind, Kind::kEvent) << other.message;
  EXPECT_EQ(other.event.xid, 79u);
  EXPECT_EQ((*second)->Wait(milliseconds(50)).kind, Kind::kTimeout);
}

TEST_F(XidEventsTest, DriverWithoutEventEntryPointsIsAnError) {
  auto nvml = Nvml::Load(kFakeNvmlBasic);
  ASSERT_TRUE(nvml.ok()) << nvml.message();
  auto watcher = XidEventWatcher::Create(**nvml);
  ASSERT_FALSE(watcher.ok());
  EXPECT_EQ(watcher.message(),
            "NVML lacks nvmlEventSetCreate, nvmlDeviceRegisterEvents, nvmlEventSetWait_v2, "
            "nvmlEventSetFree: no XID events from this driver");
}

}  // namespace
}  // namespace quotient::nvml
