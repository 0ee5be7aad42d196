#include "repro.h"

#include <fmt/format.h>

#include <fstream>

namespace quotient::kaidiff {
namespace {

using nlohmann::json;

void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

size_t Count(const Case& c, const std::string& kind) {
  size_t n = 0;
  for (const json& o : c.objects) n += o.value("kind", "") == kind ? 1u : 0u;
  return n;
}

std::string Objects(const Case& c) {
  return fmt::format("{} nodes, {} queues, {} pod groups, {} pods", Count(c, "Node"),
                     Count(c, "Queue"), Count(c, "PodGroup"), Count(c, "Pod"));
}

std::string Queues(const json& report) {
  std::string out;
  for (const json& q : report.value("queues", json::array())) {
    out += fmt::format("  - {}: fairShare {}, allocated {}, requested {}\n", q.value("name", "?"),
                       q.value("fairShare", json()).dump(), q.value("allocated", json()).dump(),
                       q.value("requested", json()).dump());
  }
  return out;
}

std::string Pods(const json& report) {
  std::string out;
  for (const json& p : report.value("pods", json::array())) {
    const std::string node = p.value("node", "");
    std::string reason = p.value("reason", "");
    if (reason.size() > 240) reason = reason.substr(0, 240) + "...";
    out +=
        fmt::format("  - {}: {}{}{}\n", p.value("pod", "?"), p.value("status", "?"),
                    node.empty() ? "" : " on " + node, reason.empty() ? "" : " (" + reason + ")");
  }
  return out;
}

std::string Side(const std::string& who, const std::optional<json>& report) {
  if (!report) return fmt::format("### {}\n(no report)\n", who);
  return fmt::format("### {}\nDecisions:\n{}Queues:\n{}Pods:\n{}", who, DecisionSummary(*report),
                     Queues(*report), Pods(*report));
}

}  // namespace

std::string DecisionSummary(const json& report) {
  std::string out;
  for (const json& cycle : report.value("cycles", json::array())) {
    std::string line;
    for (const json& d : cycle.value("decisions", json::array())) {
      line += (line.empty() ? "" : ", ") +
              fmt::format("{} {} {}{}", d.value("action", "?"), d.value("kind", "?"),
                          d.value("pod", "?"),
                          d.value("node", "").empty() ? "" : " (" + d.value("node", "") + ")");
    }
    out +=
        fmt::format("  - cycle {}: {}\n", cycle.value("index", 0), line.empty() ? "(none)" : line);
  }
  return out;
}

void WriteRepro(const std::filesystem::path& dir, const Case& shrunk, const CaseResult& result,
                const ReproInfo& info) {
  std::filesystem::create_directories(dir);
  WriteCaseFiles(shrunk, dir);
  std::string args;
  for (const std::string& a : ScheduleArgs(shrunk, "$SCENARIO")) args += a + "\n";
  WriteFile(dir / "args.txt", args);
  if (!result.kai_reports.empty()) {
    WriteFile(dir / "kai-output.json", result.kai_reports.front().dump(2) + "\n");
  }
  if (result.quotient_report) {
    WriteFile(dir / "quotient-output.json", result.quotient_report->dump(2) + "\n");
  }
  const Case& from = info.original != nullptr ? *info.original : shrunk;
  std::string tags;
  for (const std::string& t : from.tags) tags += (tags.empty() ? "" : ", ") + t;
  const Difference& d = result.verdict.first;
  std::string readme = fmt::format(
      "# kai-diff reproducer: {}{}\n\n"
      "Found by `kai_diff` (test/kai-diff) in case {} of seed {} (`{}`; feature tags: {}), and "
      "shrunk from {} to {} in {} tests ({} changes kept).\n\n"
      "## Divergence\nFirst difference ({}): {}\n\n"
      "KAI's runs of this case: {} ({} distinct). `kai-output.json` is KAI's first run, "
      "`quotient-output.json` Quotient's.\n\n",
      d.cls, d.action.empty() ? "" : " (" + d.action + ")", from.index, from.seed, from.Id(),
      tags.empty() ? "none" : tags, Objects(from), Objects(shrunk), info.stats.tests,
      info.stats.accepted, d.cls, d.detail, result.kai_reports.size(), result.verdict.kai_variants);
  readme += Side("What KAI did", result.kai_reports.empty()
                                     ? std::nullopt
                                     : std::optional<json>(result.kai_reports.front()));
  readme += "\n" + Side("What Quotient did", result.quotient_report);
  readme += fmt::format(
      "\n## Run\n```sh\nquotient schedule $(sed \"s|\\$SCENARIO|$PWD|\" args.txt)\n"
      "kai-oracle schedule $(sed \"s|\\$SCENARIO|$PWD|\" args.txt)\n```\n"
      "The folder has test/scenarios' layout without expected.json: once the rule is worked "
      "out, it can become a scenario.\n");
  WriteFile(dir / "README.md", readme);
}

}  // namespace quotient::kaidiff
