// Scenario tests: each folder under test/scenarios/ is one run of `quotient schedule`.
//
//   args.txt             the command-line arguments after `schedule`, one per line; $SCENARIO is
//                        the scenario's folder and $ROOT the repository root
//   expected.json        what the JSON report must contain: objects match when every key listed
//                        here matches (keys not listed are not compared); arrays must have the
//                        same length and match element by element; scalars must be equal
//   expected_exit.txt    optional exit code (default 0)
//   expected_stderr.txt  optional: lines that must each appear somewhere in stderr
// The expectations are worked out from the rules (see each scenario's README.md), never pasted
// from the program's output.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/schedule_command.h"

namespace quotient {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kScenarioRoot = QUOTIENT_SCENARIO_DIR;
const fs::path kRepoRoot = QUOTIENT_REPO_ROOT;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

std::string Substitute(std::string arg, const fs::path& scenario) {
  for (const auto& [token, value] : {std::pair<std::string, std::string>{"$SCENARIO", scenario},
                                     {"$ROOT", kRepoRoot.string()}}) {
    for (size_t at = arg.find(token); at != std::string::npos; at = arg.find(token)) {
      arg.replace(at, token.size(), value);
    }
  }
  return arg;
}

// Appends to `errors` every place where `actual` does not contain `expected`.
void Match(const json& expected, const json& actual, const std::string& path,
           std::vector<std::string>& errors) {
  if (expected.is_object()) {
    if (!actual.is_object()) {
      errors.push_back(path + ": expected an object, got " + actual.dump());
      return;
    }
    for (auto it = expected.begin(); it != expected.end(); ++it) {
      if (!actual.contains(it.key())) {
        errors.push_back(path + "." + it.key() + ": missing");
        continue;
      }
      Match(it.value(), actual.at(it.key()), path + "." + it.key(), errors);
    }
  } else if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      errors.push_back(path + ": expected " + std::to_string(expected.size()) + " elements, got " +
                       actual.dump());
      return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      Match(expected[i], actual[i], path + "[" + std::to_string(i) + "]", errors);
    }
  } else if (expected != actual) {
    errors.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
  }
}

class ScenarioTest : public ::testing::TestWithParam<std::string> {};

struct Outcome {
  int exit_code = 0;
  std::string out;
  std::string err;
};

// `quotient schedule` with the scenario's arguments (and `extra` ones).
Outcome RunScenario(const fs::path& dir, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"quotient", "schedule"};
  for (const std::string& line : Lines(ReadFile(dir / "args.txt"))) {
    args.push_back(Substitute(line, dir));
  }
  args.insert(args.end(), extra.begin(), extra.end());
  CLI::App app;
  cli::ScheduleFlags flags;
  cli::AddScheduleCommand(app, flags);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  Outcome o;
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    o.exit_code = -1;
    o.err = e.what();
    return o;
  }
  std::istringstream stdin_stream;
  std::ostringstream out;
  std::ostringstream err;
  o.exit_code = cli::RunSchedule(flags, stdin_stream, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

// The search shortcuts (placement-order node index, cached fit errors, cached job order, victim
// pool, early rule checks) must not change anything: the same report, byte for byte, as the
// straightforward search.
TEST_P(ScenarioTest, ShortcutsChangeNothing) {
  const fs::path dir = kScenarioRoot / GetParam();
  const Outcome fast = RunScenario(dir, {});
  const Outcome reference = RunScenario(dir, {"--reference-search"});
  EXPECT_EQ(fast.exit_code, reference.exit_code);
  EXPECT_EQ(fast.out, reference.out);
  EXPECT_EQ(fast.err, reference.err);
}

TEST_P(ScenarioTest, ReportMatchesExpectations) {
  const fs::path dir = kScenarioRoot / GetParam();
  const Outcome run = RunScenario(dir, {});
  ASSERT_NE(run.exit_code, -1) << run.err;
  const int exit_code = run.exit_code;
  std::ostringstream out(run.out);
  std::ostringstream err(run.err);

  int expected_exit = 0;
  if (fs::exists(dir / "expected_exit.txt")) {
    expected_exit = std::stoi(ReadFile(dir / "expected_exit.txt"));
  }
  EXPECT_EQ(exit_code, expected_exit) << err.str();
  if (fs::exists(dir / "expected_stderr.txt")) {
    for (const std::string& line : Lines(ReadFile(dir / "expected_stderr.txt"))) {
      EXPECT_NE(err.str().find(line), std::string::npos)
          << "stderr lacks: " << line << "\nstderr was:\n"
          << err.str();
    }
  }
  if (fs::exists(dir / "expected.json")) {
    const json expected = json::parse(ReadFile(dir / "expected.json"));
    json actual;
    ASSERT_NO_THROW(actual = json::parse(out.str())) << out.str();
    std::vector<std::string> errors;
    Match(expected, actual, "$", errors);
    for (const std::string& e : errors) ADD_FAILURE() << e;
  }
}

std::vector<std::string> ScenarioNames() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(kScenarioRoot)) {
    if (entry.is_directory() && fs::exists(entry.path() / "args.txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Scenarios, ScenarioTest, ::testing::ValuesIn(ScenarioNames()),
                         [](const ::testing::TestParamInfo<std::string>& param) {
                           std::string name = param.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace quotient
