// `quotient generate cluster` through CLI11 parsing and its run function: presets and overrides,
// usage errors naming the flag, output to standard output or a file.
#include "cli/generate_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/loader.h"

namespace quotient::cli {
namespace {

struct Outcome {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Parses `args` (after `quotient`) as main.cc does; parse errors propagate as CLI11 exceptions.
GenerateClusterFlags Parse(const std::string& args) {
  CLI::App app;
  GenerateClusterFlags flags;
  GenerateDemoFlags demo_flags;
  AddGenerateCommand(app, flags, demo_flags);
  app.parse(args, false);
  return flags;
}

Outcome RunCommand(const std::string& args) {
  const GenerateClusterFlags flags = Parse(args);
  std::ostringstream out, err;
  Outcome outcome;
  outcome.exit_code = RunGenerateCluster(flags, out, err);
  outcome.out = out.str();
  outcome.err = err.str();
  return outcome;
}

// The message of the parse error `args` raise; empty when they parse.
std::string ParseError(const std::string& args) {
  try {
    Parse(args);
  } catch (const CLI::ParseError& e) {
    return e.what();
  }
  return "";
}

kube::LoadResult Load(const std::string& text) {
  kube::LoadResult loaded;
  kube::DecodeManifestText(text, "generated", loaded);
  EXPECT_TRUE(loaded.diagnostics.empty()) << loaded.diagnostics.front().ToString();
  return loaded;
}

TEST(GenerateClusterCommand, FlagsOverrideThePresetWhereverTheyStand) {
  const Outcome o = RunCommand(
      "generate cluster --nodes 6 --preset large --running-pods 40 --pending-groups 3 --seed 5");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.err, "");
  const kube::LoadResult loaded = Load(o.out);
  EXPECT_EQ(loaded.objects.nodes.size(), 6u);
  EXPECT_EQ(loaded.objects.queues.size(), 10u + 10u * 10u);  // large: 10 departments x 10
  int running = 0;
  for (const core::PodObject& pod : loaded.objects.pods) {
    running += pod.phase == core::PodPhase::kRunning ? 1 : 0;
  }
  EXPECT_EQ(running, 40);
}

TEST(GenerateClusterCommand, DefaultIsTheSmallPresetAsJson) {
  const Outcome o = RunCommand("generate cluster");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(o.out.rfind(R"({"apiVersion":"v1","kind":"List","items":[)", 0), 0u);
  EXPECT_EQ(Load(o.out).objects.nodes.size(), 100u);
}

TEST(GenerateClusterCommand, YamlIsAStreamOfTheSameObjects) {
  const std::string flags = " --nodes 3 --running-pods 20 --pending-groups 4";
  const Outcome json = RunCommand("generate cluster" + flags);
  const Outcome yaml = RunCommand("generate cluster --format yaml" + flags);
  ASSERT_EQ(yaml.exit_code, 0) << yaml.err;
  EXPECT_EQ(yaml.out.rfind("---\n", 0), 0u);
  EXPECT_EQ(Load(yaml.out).objects.pods.size(), Load(json.out).objects.pods.size());
}

TEST(GenerateClusterCommand, BadValuesAreUsageErrorsNamingTheFlag) {
  EXPECT_EQ(ParseError("generate cluster --nodes 0"), "--nodes: Value 0 not in range 1 to 100000");
  EXPECT_EQ(ParseError("generate cluster --gpus-per-node 1"),
            "--gpus-per-node: Value 1 not in range 2 to 16");
  EXPECT_EQ(ParseError("generate cluster --preset huge"),
            "--preset: huge not in {small,large,xlarge,reclaim-1000}");
  EXPECT_EQ(ParseError("generate cluster --format xml"), "--format: xml not in {json,yaml}");
  EXPECT_EQ(ParseError("generate cluster --seed -1"),
            "--seed: Value -1 is not a whole number >= 0");
  EXPECT_NE(ParseError("generate cluster --running-pods many").find("--running-pods"),
            std::string::npos);
  EXPECT_NE(ParseError("generate cluster --pending-groups").find("--pending-groups"),
            std::string::npos);
}

TEST(GenerateClusterCommand, CombinationsThatCannotBeBuiltAreUsageErrors) {
  const Outcome pools = RunCommand("generate cluster --nodes 2 --pools 3");
  EXPECT_EQ(pools.exit_code, 2);
  EXPECT_EQ(pools.err, "quotient: error: --pools must be between 1 and 2, got 3\n");
  EXPECT_EQ(pools.out, "");
  const Outcome crowded = RunCommand("generate cluster --nodes 2 --running-pods 1000");
  EXPECT_EQ(crowded.exit_code, 2);
  EXPECT_NE(crowded.err.find("--running-pods 1000 do not fit on the 2 nodes"), std::string::npos)
      << crowded.err;
  const Outcome reclaim = RunCommand("generate cluster --preset reclaim-1000 --running-pods 5");
  EXPECT_EQ(reclaim.exit_code, 2);
  EXPECT_EQ(reclaim.err,
            "quotient: error: --running-pods does not apply to --preset reclaim-1000 (its shape "
            "follows from --nodes and --gpus-per-node)\n");
}

TEST(GenerateClusterCommand, ReclaimPresetTakesItsNodeCount) {
  const Outcome o = RunCommand("generate cluster --preset reclaim-1000 --nodes 20");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const kube::LoadResult loaded = Load(o.out);
  EXPECT_EQ(loaded.objects.nodes.size(), 20u);
  EXPECT_EQ(loaded.objects.pods.size(), 20u * 8u + 2u);  // 160 running, a gang of 20 / 10
}

TEST(GenerateClusterCommand, WritesTheFileNamedByDashO) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / "quotient_generate_command_test.json";
  const std::string flags = " --nodes 3 --running-pods 20 --pending-groups 4";
  const Outcome to_file = RunCommand("generate cluster -o " + path.string() + flags);
  ASSERT_EQ(to_file.exit_code, 0) << to_file.err;
  EXPECT_EQ(to_file.out, "");
  std::ifstream in(path);
  std::stringstream written;
  written << in.rdbuf();
  EXPECT_EQ(written.str(), RunCommand("generate cluster" + flags).out);
  std::filesystem::remove(path);
}

TEST(GenerateClusterCommand, AnUnwritableFileIsExitCodeOne) {
  const Outcome o =
      RunCommand("generate cluster --nodes 3 --running-pods 20 -o /nonexistent-dir/cluster.json");
  EXPECT_EQ(o.exit_code, 1);
  EXPECT_EQ(o.err, "quotient: error: -o /nonexistent-dir/cluster.json: cannot write the file\n");
}

}  // namespace
}  // namespace quotient::cli
