#include "traces/philly_trace.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/loader.h"

namespace quotient::traces {
namespace {

class PhillyTraceTest : public ::testing::Test {
 protected:
  PhillyTraceTest() {
    dir_ = std::filesystem::temp_directory_path() /
           ("philly-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    Write("vc.csv", "vc,node num\nabc123,2\ndef456,1\n");
  }
  ~PhillyTraceTest() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ / name) << text;
    return (dir_ / name).string();
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(PhillyTraceTest, JobsBecomeGangsInTheirVirtualClustersQueues) {
  Write("jobs.csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55,66.0,1,66.0,abc123\n"
        "2017-10-09 06:13:03,2951.5,12,35418.0,def456\n"  // earlier: first after sorting
        "2017-10-09 08:00:00,0.0,2,0.0,zzz999\n");        // an unknown VC, a zero duration
  Result<PhillyTrace> trace = ReadPhilly(Path("jobs.csv"), Path("vc.csv"));
  ASSERT_TRUE(trace.ok()) << trace.message();
  ASSERT_EQ(trace->jobs.size(), 3u);
  EXPECT_EQ(trace->jobs.front().vc, "def456");
  EXPECT_EQ(trace->jobs.front().duration, 2952);  // rounded up

  std::ostringstream text;
  generate::WriteObjects(
      [&](const generate::ObjectVisitor& visit) { ForEachPhillyObject(trace.value(), visit); },
      generate::OutputFormat::kJson, text);
  kube::LoadResult loaded;
  kube::DecodeManifestText(text.str(), "philly.json", loaded);
  ASSERT_FALSE(loaded.HasErrors());
  const core::ClusterObjects& o = loaded.objects;
  EXPECT_EQ(o.nodes.size(), 3u);   // 2 + 1 nodes
  ASSERT_EQ(o.queues.size(), 3u);  // two VCs and philly-other
  ASSERT_EQ(o.pod_groups.size(), 3u);
  // job-000000: the 12-GPU job, 8 + 4, both needed; arrives first.
  const core::PodGroupObject& big = o.pod_groups[0];
  EXPECT_EQ(big.meta.name, "job-000000");
  EXPECT_EQ(big.queue, "vc-def456");
  EXPECT_EQ(big.min_member, 2);
  EXPECT_EQ(big.meta.annotations.at("simulation.quotient.dev/arrival"), "0s");
  EXPECT_EQ(big.meta.annotations.at("simulation.quotient.dev/duration"), "2952s");
  ASSERT_EQ(o.pods.size(), 4u);
  EXPECT_EQ(o.pods[0].containers.front().requests.gpu_milli.value(), 8000);
  EXPECT_EQ(o.pods[1].containers.front().requests.gpu_milli.value(), 4000);
  // job-000001 arrives 2,932 s later; job-000002's VC is unknown: it only borrows.
  EXPECT_EQ(o.pod_groups[1].meta.annotations.at("simulation.quotient.dev/arrival"), "2932s");
  EXPECT_EQ(o.pod_groups[2].queue, "philly-other");
  EXPECT_EQ(o.pod_groups[2].meta.annotations.at("simulation.quotient.dev/duration"), "1s");
}

TEST_F(PhillyTraceTest, ALimitKeepsTheEarliestJobs) {
  Write("jobs.csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 09:00:00,10,1,10,abc123\n"
        "2017-10-09 07:00:00,10,1,10,abc123\n"
        "2017-10-09 08:00:00,10,1,10,abc123\n");
  Result<PhillyTrace> trace = ReadPhilly(Path("jobs.csv"), Path("vc.csv"), 2);
  ASSERT_TRUE(trace.ok()) << trace.message();
  ASSERT_EQ(trace->jobs.size(), 2u);
  EXPECT_LT(trace->jobs[0].submitted, trace->jobs[1].submitted);
  EXPECT_EQ(trace->jobs[1].submitted - trace->jobs[0].submitted, 3600);
}

TEST_F(PhillyTraceTest, BadRowsAreErrorsNamingFileLineAndColumn) {
  Write("bad-gpus.csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55,66.0,1,66.0,abc123\n"
        "2017-10-09 07:01:55,66.0,zero,66.0,abc123\n");
  Result<PhillyTrace> trace = ReadPhilly(Path("bad-gpus.csv"), Path("vc.csv"));
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.message().find("bad-gpus.csv:3: column num_gpus"), std::string::npos)
      << trace.message();
  Write("bad-time.csv",
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "yesterday,66.0,1,66.0,abc123\n");
  trace = ReadPhilly(Path("bad-time.csv"), Path("vc.csv"));
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.message().find("bad-time.csv:2: column timestamp"), std::string::npos)
      << trace.message();
  trace = ReadPhilly(Path("missing.csv"), Path("vc.csv"));
  ASSERT_FALSE(trace.ok());
  EXPECT_NE(trace.message().find("missing.csv"), std::string::npos) << trace.message();
}

}  // namespace
}  // namespace quotient::traces
