#include "engines.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <thread>

namespace quotient::kaidiff {

QuotientEngine::QuotientEngine(std::filesystem::path binary, std::filesystem::path scratch,
                               int workers)
    : binary_(std::move(binary)),
      scratch_(std::move(scratch)),
      workers_(workers > 0 ? workers
                           : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

RunAnswer QuotientEngine::RunOne(const RunRequest& request, const std::filesystem::path& err) {
  std::vector<std::string> argv = {binary_.string(), "schedule"};
  argv.insert(argv.end(), request.args.begin(), request.args.end());
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
  std::vector<RunAnswer> out(pending_.size());
  std::atomic<size_t> next{0};
  const auto work = [&](int worker) {
    const std::filesystem::path err = scratch_ / ("quotient-" + std::to_string(worker) + ".stderr");
    for (size_t k = next++; k < pending_.size(); k = next++) out[k] = RunOne(pending_[k], err);
  };
  const int n = std::min(workers_, static_cast<int>(pending_.size()));
  std::vector<std::thread> threads;
  for (int w = 1; w < n; ++w) threads.emplace_back(work, w);
  work(0);
  for (std::thread& t : threads) t.join();
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
