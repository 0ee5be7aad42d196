#include "engines.h"

#include <fstream>
#include <sstream>

namespace quotient::kaidiff {

RunAnswer QuotientEngine::RunOne(const RunRequest& request) {
  std::vector<std::string> argv = {binary_.string(), "schedule"};
  argv.insert(argv.end(), request.args.begin(), request.args.end());
  const std::filesystem::path err = scratch_ / "quotient.stderr";
  const ProcessResult r = RunProcess(argv, err);
  RunAnswer answer;
  if (r.exit_code != 0) {
    std::ifstream in(err);
    std::stringstream text;
    text << in.rdbuf();
    answer.error =
        "quotient exited with " + std::to_string(r.exit_code) + ": " + text.str().substr(0, 400);
    return answer;
  }
  try {
    answer.report = nlohmann::json::parse(r.out);
  } catch (const nlohmann::json::exception& e) {
    answer.error = std::string("quotient printed no JSON: ") + e.what();
  }
  return answer;
}

std::vector<RunAnswer> QuotientEngine::Collect() {
  std::vector<RunAnswer> out;
  for (const RunRequest& r : pending_) out.push_back(RunOne(r));
  pending_.clear();
  return out;
}

bool OracleEngine::EnsureStarted() {
  if (process_.running()) return true;
  std::vector<std::string> argv = command_;
  argv.push_back("batch");
  if (!process_.Start(argv, stderr_file_)) {
    start_error_ = "cannot start the oracle: " + command_.front();
    return false;
  }
  return true;
}

void OracleEngine::Submit(const std::vector<RunRequest>& requests) {
  pending_ids_.clear();
  if (!EnsureStarted()) {
    for (const RunRequest& r : requests) pending_ids_.push_back(r.id);
    return;
  }
  for (const RunRequest& r : requests) {
    process_.WriteLine(nlohmann::json{{"id", r.id}, {"args", r.args}}.dump());
    pending_ids_.push_back(r.id);
  }
}

std::vector<RunAnswer> OracleEngine::Collect() {
  std::vector<RunAnswer> out;
  bool dead = !process_.running();
  for (const std::string& id : pending_ids_) {
    RunAnswer answer;
    std::optional<std::string> line;
    if (!dead) line = process_.ReadLine(std::chrono::seconds(timeout_seconds_));
    if (!line) {
      dead = true;
      answer.error = start_error_.empty() ? "the oracle stopped answering" : start_error_;
      out.push_back(std::move(answer));
      continue;
    }
    try {
      const nlohmann::json reply = nlohmann::json::parse(*line);
      if (reply.value("id", "") != id) {
        answer.error = "the oracle answered " + reply.value("id", "?") + " for " + id;
        dead = true;  // out of step: start afresh
      } else if (reply.contains("report")) {
        answer.report = reply.at("report");
      } else {
        answer.error = "oracle: " + reply.value("error", "no report");
      }
    } catch (const nlohmann::json::exception& e) {
      answer.error = std::string("oracle printed no JSON: ") + e.what();
    }
    out.push_back(std::move(answer));
  }
  pending_ids_.clear();
  if (dead) process_.Stop();
  return out;
}

}  // namespace quotient::kaidiff
