// The generator: deterministic per (seed, case), every feature reachable, switches honoured,
// and what it writes is input Quotient reads without a warning beyond the deliberate ones (a
// Queue without spec.resources, negative quotas and weights).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "generator.h"
#include "process.h"

namespace quotient::kaidiff {
namespace {

namespace fs = std::filesystem;

TEST(GeneratorTest, SameSeedAndCaseSameObjects) {
  for (int i = 0; i < 20; ++i) {
    const Case a = GenerateCase(7, i), b = GenerateCase(7, i);
    EXPECT_EQ(ToYaml(a.objects), ToYaml(b.objects));
    EXPECT_EQ(a.tags, b.tags);
    EXPECT_EQ(ScheduleArgs(a, "d"), ScheduleArgs(b, "d"));
  }
  EXPECT_NE(ToYaml(GenerateCase(7, 1).objects), ToYaml(GenerateCase(7, 2).objects));
  EXPECT_NE(ToYaml(GenerateCase(7, 1).objects), ToYaml(GenerateCase(8, 1).objects));
}

TEST(GeneratorTest, EveryFeatureTagAppearsAndSizesStayInRange) {
  std::map<std::string, int> seen;
  for (int i = 0; i < 600; ++i) {
    const Case c = GenerateCase(1, i);
    int nodes = 0, pods = 0;
    for (const auto& o : c.objects) {
      nodes += o["kind"] == "Node" ? 1 : 0;
      pods += o["kind"] == "Pod" ? 1 : 0;
    }
    EXPECT_GE(nodes, 1);
    EXPECT_LE(nodes, 12);
    EXPECT_LE(pods, 70);
    EXPECT_GE(c.run.cycles, 1);
    EXPECT_LE(c.run.cycles, 3);
    EXPECT_FALSE(c.run.actions.empty());
    EXPECT_TRUE(std::is_sorted(c.tags.begin(), c.tags.end()));
    for (const std::string& t : c.tags) {
      EXPECT_TRUE(std::binary_search(FeatureTags().begin(), FeatureTags().end(), t)) << t;
      ++seen[t];
    }
  }
  for (const std::string& t : FeatureTags()) EXPECT_GT(seen[t], 0) << "never generated: " << t;
}

TEST(GeneratorTest, DisabledFeaturesStayOut) {
  GeneratorOptions options;
  options.disabled = {"mig", "fraction", "min-subgroup", "negative-weight"};
  for (int i = 0; i < 300; ++i) {
    const Case c = GenerateCase(1, i, options);
    for (const std::string& f : options.disabled) EXPECT_FALSE(c.HasTag(f)) << f << " in " << i;
  }
}

TEST(GeneratorTest, QuotientReadsTheCasesWithoutWarnings) {
  const fs::path dir =
      fs::temp_directory_path() / ("kai-diff-generator-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  for (int i = 0; i < 40; ++i) {
    const Case c = GenerateCase(3, i);
    WriteCaseFiles(c, dir);
    std::vector<std::string> argv = {KAI_DIFF_QUOTIENT_BINARY, "schedule"};
    for (const std::string& a : ScheduleArgs(c, dir.string())) argv.push_back(a);
    const ProcessResult r = RunProcess(argv, dir / "stderr.txt");
    std::ifstream err(dir / "stderr.txt");
    std::stringstream text;
    text << err.rdbuf();
    EXPECT_EQ(r.exit_code, 0) << c.Id() << "\n" << text.str();
    // The only warnings are the ones the queue edge cases are there for.
    std::stringstream lines(text.str());
    for (std::string line; std::getline(lines, line);) {
      const bool expected = line.find("spec.resources: missing") != std::string::npos ||
                            line.find("negative amount") != std::string::npos ||
                            line.find("negative weight") != std::string::npos;
      EXPECT_TRUE(expected) << c.Id() << ": " << line;
    }
    fs::remove(dir / "config.yaml");
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace quotient::kaidiff
