#include "nodeagent/dcgm_diag.h"

#include "nodeagent/run_process.h"

namespace quotient::nodeagent {

namespace {

// Output lines a failed diagnostic reports: enough for its verdict table's failing rows and
// the error dcgmi ends with, short enough for one line of text output.
constexpr std::size_t kTailLines = 6;

// "300 s", or "300 ms" below a second.
std::string Duration(std::chrono::milliseconds d) {
  if (d < std::chrono::seconds(1)) return std::to_string(d.count()) + " ms";
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

}  // namespace

std::optional<DcgmMode> ParseDcgmMode(std::string_view text) {
  if (text == "auto") return DcgmMode::kAuto;
  if (text == "off") return DcgmMode::kOff;
  if (text == "required") return DcgmMode::kRequired;
  return std::nullopt;
}

std::chrono::milliseconds DefaultDcgmTimeout(int level) {
  using std::chrono::minutes;
  if (level >= 3) return minutes(60);
  if (level == 2) return minutes(20);
  return minutes(5);
}

Check RunDcgmDiag(const DcgmOptions& options) {
  const std::string level = std::to_string(options.level);
  const std::string command = "dcgmi diag -r " + level;
  if (options.mode == DcgmMode::kOff) return {"dcgm-diag", Verdict::kSkip, "--dcgm off"};
  const std::optional<std::string> dcgmi = FindOnPath("dcgmi", options.path);
  if (!dcgmi) {
    if (options.mode == DcgmMode::kRequired) {
      return {"dcgm-diag", Verdict::kFail, "dcgmi not found on PATH (--dcgm required)"};
    }
    return {"dcgm-diag", Verdict::kSkip, "dcgmi not found on PATH"};
  }
  const auto started = std::chrono::steady_clock::now();
  const ProcessResult run = RunProcess({*dcgmi, "diag", "-r", level}, options.timeout);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - started);
  if (!run.started) return {"dcgm-diag", Verdict::kFail, command + " did not start: " + run.error};
  const std::string tail = LastLines(run.output, kTailLines);
  const std::string output = tail.empty() ? "" : ": " + tail;
  if (run.timed_out) {
    return {"dcgm-diag", Verdict::kFail,
            command + " ran past " + Duration(options.timeout) + " and was killed" + output};
  }
  if (run.exit_code == 0)
    return {"dcgm-diag", Verdict::kPass, command + " passed in " + Duration(took)};
  const std::string how = run.exit_code
                              ? "exited " + std::to_string(*run.exit_code)
                              : "ended by signal " + std::to_string(run.term_signal.value_or(0));
  return {"dcgm-diag", Verdict::kFail, command + " " + how + output};
}

}  // namespace quotient::nodeagent
