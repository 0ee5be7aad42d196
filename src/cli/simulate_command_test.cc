// `quotient simulate` end to end through its run function: a comparison against objects laid
// over the inputs, the files it writes, and the bundled demo day (scripts/demo.sh), whose
// outcome follows from its quotas: the sweep borrows and is reclaimed under bin-packing, while
// spreading leaves too few nodes that can be emptied for the pre-training gang.
#include "cli/simulate_command.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command_common.h"
#include "generate/cluster_generator.h"
#include "generate/demo_day.h"
#include "kube/loader.h"
#include "simulate/run_summary.h"
#include "simulate/simulation.h"

namespace quotient::cli {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Outcome Simulate(const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"quotient", "simulate", "--progress", "never"};
  args.insert(args.end(), extra.begin(), extra.end());
  CLI::App app;
  SimulateFlags flags;
  AddSimulateCommand(app, flags);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  Outcome r;
  r.exit_code = RunSimulate(flags, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::filesystem::path TempDir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("quotient-simulate-" + name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(SimulateCommandTest, ComparesWithObjectsLaidOverTheInputs) {
  const std::filesystem::path dir = TempDir("compare");
  // team-a deserves nothing in the compared run. The 16 GPUs beyond the quotas (8: team-b's)
  // are shared by over-quota weight, 1 to 1: team-a's fair share is 4, so reclaim evicts 4 of
  // team-b's pods rather than 8.
  {
    std::ofstream overlay(dir / "team-a-without-quota.yaml");
    overlay << "apiVersion: scheduling.run.ai/v2\nkind: Queue\n"
               "metadata: {name: team-a, creationTimestamp: \"2026-01-01T00:00:00Z\"}\n"
               "spec:\n  resources:\n    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
               "    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}\n"
               "    memory: {quota: -1, limit: -1, overQuotaWeight: 1}\n";
  }
  const Outcome r =
      Simulate({"--compare-with", (dir / "team-a-without-quota.yaml").string(), "--csv",
                (dir / "csv").string(), "--html", (dir / "report.html").string(),
                QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t baseline = r.out.find("== baseline: default configuration");
  const size_t compared = r.out.find("== team-a-without-quota: default configuration, with " +
                                     (dir / "team-a-without-quota.yaml").string());
  ASSERT_NE(baseline, std::string::npos) << r.out;
  ASSERT_NE(compared, std::string::npos) << r.out;
  ASSERT_LT(baseline, compared);
  // The example's reclaim (docs/simulate-command.md) in the first; none in the second.
  EXPECT_NE(r.out.substr(baseline, compared - baseline).find("evictions: 8,"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.substr(compared).find("evictions: 4,"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "csv" / "baseline" / "pods.csv"));
  EXPECT_TRUE(std::filesystem::exists(dir / "csv" / "team-a-without-quota" / "pods.csv"));
  std::ifstream html(dir / "report.html");
  const std::string page((std::istreambuf_iterator<char>(html)), {});
  EXPECT_NE(page.find("team-a-without-quota"), std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST(SimulateCommandTest, CompareTellsAConfigurationFromObjects) {
  // A KAI configuration file: the second run uses it, and takes its name.
  const Outcome config =
      Simulate({"--compare", QUOTIENT_REPO_ROOT "/examples/simulate-demo/spread.yaml",
                QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"});
  ASSERT_EQ(config.exit_code, 0) << config.err;
  EXPECT_NE(config.out.find("== spread: configuration " QUOTIENT_REPO_ROOT
                            "/examples/simulate-demo/spread.yaml\n"),
            std::string::npos)
      << config.out;
  // Objects: laid over the inputs.
  const std::filesystem::path dir = TempDir("compare-objects");
  {
    std::ofstream overlay(dir / "more-nodes.yaml");
    overlay << "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-node-c}\nstatus:\n"
               "  allocatable: {cpu: \"64\", memory: 512Gi, nvidia.com/gpu: \"8\", pods: \"110\"}\n"
               "  conditions:\n  - {type: Ready, status: \"True\"}\n";
  }
  const Outcome objects = Simulate({"--compare", (dir / "more-nodes.yaml").string(),
                                    QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"});
  ASSERT_EQ(objects.exit_code, 0) << objects.err;
  EXPECT_EQ(objects.err, "");  // nothing wrong in either run's objects
  const size_t compared = objects.out.find("== more-nodes: default configuration, with ");
  ASSERT_NE(compared, std::string::npos) << objects.out;
  // With 24 GPUs nobody needs to be reclaimed: team-b's 16 and team-a's 8 all fit.
  EXPECT_NE(objects.out.substr(compared).find("evictions: 0,"), std::string::npos) << objects.out;
  // A queue whose parent is missing, only in the compared run: its warning is printed.
  {
    std::ofstream orphan(dir / "orphan.yaml");
    orphan << "apiVersion: scheduling.run.ai/v2\nkind: Queue\n"
              "metadata: {name: team-c, creationTimestamp: \"2026-01-01T00:00:00Z\"}\n"
              "spec:\n  parentQueue: nowhere\n  resources:\n"
              "    gpu: {quota: 0, limit: -1, overQuotaWeight: 1}\n"
              "    cpu: {quota: -1, limit: -1, overQuotaWeight: 1}\n"
              "    memory: {quota: -1, limit: -1, overQuotaWeight: 1}\n";
  }
  const Outcome orphaned = Simulate({"--compare", (dir / "orphan.yaml").string(),
                                     QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"});
  ASSERT_EQ(orphaned.exit_code, 0) << orphaned.err;
  EXPECT_NE(orphaned.err.find("team-c"), std::string::npos) << orphaned.err;
  // Two configurations cannot both be the other run.
  EXPECT_EQ(Simulate({"--compare", QUOTIENT_REPO_ROOT "/examples/simulate-demo/spread.yaml",
                      "--compare", QUOTIENT_REPO_ROOT "/examples/simulate-demo/spread.yaml",
                      QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"})
                .exit_code,
            2);
  std::filesystem::remove_all(dir);
}

TEST(SimulateCommandTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(
      Simulate({"--occupancy-at", "1h,soon", QUOTIENT_REPO_ROOT "/examples/reclaim"}).exit_code, 2);
  const Outcome missing = Simulate({"--compare-with", "/nonexistent/changes.yaml",
                                    QUOTIENT_REPO_ROOT "/examples/simulate-borrow-and-reclaim"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/changes.yaml"), std::string::npos) << missing.err;
}

// The demo day, read back as `quotient simulate` reads it.
core::ClusterObjects DemoDay() {
  std::ostringstream text;
  generate::WriteObjects(
      [](const generate::ObjectVisitor& visit) { generate::ForEachDemoDayObject(1, visit); },
      generate::OutputFormat::kYaml, text);
  kube::LoadResult loaded;
  kube::DecodeManifestText(text.str(), "demo.yaml", loaded);
  EXPECT_FALSE(loaded.HasErrors());
  return loaded.objects;
}

const simulate::QueueSummary& QueueOf(const simulate::RunSummary& s, const std::string& name) {
  for (const simulate::QueueSummary& q : s.queues) {
    if (q.queue == name) return q;
  }
  throw std::runtime_error("no queue " + name);
}

// The demo day under bin-packing (the default) and spreading, simulated once for all tests.
class SimulateDemoTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    objects_ = new core::ClusterObjects(DemoDay());
    Result<simulate::SimulationResult> packed = simulate::Simulate(*objects_, {});
    ASSERT_TRUE(packed.ok()) << packed.message();
    packed_ = new simulate::SimulationResult(std::move(packed).value());
    simulate::SimulationOptions spread;
    std::ostringstream err;
    ASSERT_FALSE(LoadConfig(QUOTIENT_REPO_ROOT "/examples/simulate-demo/spread.yaml", "",
                            spread.config, err))
        << err.str();
    Result<simulate::SimulationResult> spread_run = simulate::Simulate(*objects_, spread);
    ASSERT_TRUE(spread_run.ok()) << spread_run.message();
    spread_ = new simulate::SimulationResult(std::move(spread_run).value());
  }
  static void TearDownTestSuite() {
    delete objects_;
    delete packed_;
    delete spread_;
  }
  static core::ClusterObjects* objects_;
  static simulate::SimulationResult* packed_;
  static simulate::SimulationResult* spread_;
};

core::ClusterObjects* SimulateDemoTest::objects_ = nullptr;
simulate::SimulationResult* SimulateDemoTest::packed_ = nullptr;
simulate::SimulationResult* SimulateDemoTest::spread_ = nullptr;

TEST_F(SimulateDemoTest, TheSweepBorrowsAndIsReclaimedUnderBinPacking) {
  // 200 sweep pods, gangs of 12 + 2 + 2 (llm), 2 + 2 + 2 (vision), 2 + 1 (speech), 4 + 4
  // (recsys), 16 fan-outs of 32 and 8 of 12, 80 notebooks.
  ASSERT_EQ(objects_->pods.size(), 200u + 16 + 6 + 3 + 8 + 16 * 32 + 8 * 12 + 80);
  const simulate::SimulationResult& r = *packed_;
  const simulate::RunSummary s = simulate::Summarize(r);
  EXPECT_EQ(s.pods, static_cast<int64_t>(objects_->pods.size()));
  EXPECT_EQ(s.completed, s.pods);  // every piece of work has an end
  // Before 09:00 recsys holds far more than its 64 deserved GPUs.
  int64_t recsys_peak_before_nine = 0;
  int64_t llm_at_nine = 0;
  for (const simulate::QueueSample& q : r.queues) {
    if (q.queue == "recsys" && q.time < std::chrono::hours(9)) {
      recsys_peak_before_nine = std::max(recsys_peak_before_nine, q.allocated_gpu_milli);
    }
    if (q.queue == "llm" && q.time >= std::chrono::hours(9) &&
        q.time <= std::chrono::hours(9) + std::chrono::seconds(5)) {
      llm_at_nine = std::max(llm_at_nine, q.allocated_gpu_milli);
    }
  }
  EXPECT_GT(recsys_peak_before_nine, 64'000 * 2);
  // The 96-GPU pre-training gang, within llm's quota, runs within seconds: reclaim made room.
  EXPECT_GE(llm_at_nine, 96'000);
  // Only the borrower's pods were evicted.
  for (const simulate::QueueSummary& q : s.queues) {
    if (q.queue != "recsys") {
      EXPECT_EQ(q.evictions, 0) << q.queue;
    }
  }
  EXPECT_GT(QueueOf(s, "recsys").evictions, 0);
}

TEST_F(SimulateDemoTest, SpreadingStrandsTheGpusTheGangNeeds) {
  const simulate::RunSummary s = simulate::Summarize(*spread_);
  EXPECT_EQ(s.completed, s.pods);
  // Spread over every node, pods that reclaim may not take (non-preemptible notebooks, work
  // within its queue's quota) leave too few nodes that could be emptied for the 8-GPU pods: the
  // gang waits for hours rather than seconds, and more idle GPUs are stranded than when packed.
  EXPECT_GT(QueueOf(s, "llm").wait_p99, 3600);
  EXPECT_GT(s.mean_stranded_gpus_milli, simulate::Summarize(*packed_).mean_stranded_gpus_milli);
}

}  // namespace
}  // namespace quotient::cli
