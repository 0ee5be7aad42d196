// `quotient schedule --profile`: the profile goes to stderr, lists every phase of every cycle,
// and leaves the report on stdout unchanged. Timings are not asserted, only their format.
#include "cli/schedule_command.h"

#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace quotient::cli {
namespace {

struct Result {
  int exit_code = -1;
  std::string out;
  std::string err;
};

Result Schedule(std::vector<std::string> extra) {
  std::vector<std::string> args = {"quotient",
                                   "schedule",
                                   "--now",
                                   "2026-03-01T12:00:00Z",
                                   "--actions",
                                   "allocate,reclaim",
                                   "--cycles",
                                   "2",
                                   "-o",
                                   "json",
                                   QUOTIENT_REPO_ROOT "/examples/reclaim"};
  args.insert(args.end(), extra.begin(), extra.end());
  CLI::App app;
  ScheduleFlags flags;
  AddScheduleCommand(app, flags);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), argv.data());
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  Result r;
  r.exit_code = RunSchedule(flags, in, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

// The columns of a table line (separated by two or more spaces; empty cells vanish).
std::vector<std::string> Columns(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  size_t spaces = 0;
  for (char c : line + "  ") {
    if (c == ' ') {
      ++spaces;
      continue;
    }
    if (spaces == 1) cell += ' ';
    if (spaces >= 2 && !cell.empty()) {
      out.push_back(cell);
      cell.clear();
    }
    spaces = 0;
    cell += c;
  }
  if (!cell.empty()) out.push_back(cell);
  return out;
}

TEST(ScheduleProfile, ListsEveryPhaseOfEveryCycleOnStderrOnly) {
  const Result plain = Schedule({});
  const Result profiled = Schedule({"--profile"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(profiled.exit_code, 0) << profiled.err;
  EXPECT_EQ(profiled.out, plain.out);
  EXPECT_EQ(plain.err.find("PROFILE"), std::string::npos) << plain.err;
  EXPECT_EQ(plain.out.find("PROFILE"), std::string::npos);

  // stderr: the same diagnostics as without --profile, then the profile table.
  ASSERT_EQ(profiled.err.substr(0, plain.err.size()), plain.err);
  std::istringstream table(profiled.err.substr(plain.err.size()));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(table, line);) rows.push_back(Columns(line));
  const std::vector<std::vector<std::string>> expected = {
      {"PROFILE"},
      {"PHASE", "CYCLE", "TIME"},
      {"load", "-"},
      {"build_snapshot", "0"},
      {"open_session", "0"},
      {"allocate", "0"},
      {"reclaim", "0"},
      {"close_session", "0"},
      {"build_snapshot", "1"},
      {"open_session", "1"},
      {"allocate", "1"},
      {"reclaim", "1"},
      {"close_session", "1"},
      {"output", "-"},
      {"total"},
      {"peak memory"},
      {"objects"},
  };
  ASSERT_EQ(rows.size(), expected.size()) << profiled.err;
  const std::regex duration(R"([0-9]+\.[0-9] (µs|ms)|[0-9]+\.[0-9]{2} s)");
  for (size_t i = 0; i < rows.size(); ++i) {
    std::vector<std::string> row = rows[i];
    if (i < 2) {
      EXPECT_EQ(row, expected[i]);
      continue;
    }
    ASSERT_EQ(row.size(), expected[i].size() + 1) << profiled.err;
    const std::string value = row.back();
    row.pop_back();
    EXPECT_EQ(row, expected[i]);
    if (row[0] == "peak memory") {
      EXPECT_TRUE(std::regex_match(value, std::regex(R"([0-9]+\.[0-9] MiB|[0-9]+\.[0-9]{2} GiB)")))
          << value;
    } else if (row[0] == "objects") {
      EXPECT_EQ(value, "2 nodes, 18 pods, 1 pod group, 2 queues");
    } else {
      EXPECT_TRUE(std::regex_match(value, duration)) << row[0] << ": " << value;
    }
  }
}

}  // namespace
}  // namespace quotient::cli
