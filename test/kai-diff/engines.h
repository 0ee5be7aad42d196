// The two schedulers behind one interface. A request is the argument list after `schedule`;
// an answer is the parsed JSON report or an error. QuotientEngine runs the quotient binary once
// per request; OracleEngine keeps one `kai-oracle batch` process (argv: the oracle's command,
// then `batch`) and streams requests to it, so that the runner can run Quotient while the
// oracle works (Submit, then Collect). A dead or silent oracle is restarted; the requests it
// held answer with an error.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "process.h"

namespace quotient::kaidiff {

struct RunRequest {
  std::string id;
  std::vector<std::string> args;
};

struct RunAnswer {
  std::optional<nlohmann::json> report;
  std::string error;  // when there is no report
};

class Engine {
 public:
  virtual ~Engine() = default;
  // Hands over requests; Collect() returns their answers in order. An engine may start on them
  // at once (the oracle, in its own process) or when collected (Quotient).
  virtual void Submit(const std::vector<RunRequest>& requests) = 0;
  virtual std::vector<RunAnswer> Collect() = 0;
  std::vector<RunAnswer> Run(const std::vector<RunRequest>& requests) {
    Submit(requests);
    return Collect();
  }
};

// Collect() runs the requests `workers` at a time (default: one per core), each process with
// a stderr file of its own; answers come back in request order whatever the finishing order.
class QuotientEngine : public Engine {
 public:
  QuotientEngine(std::filesystem::path binary, std::filesystem::path scratch, int workers = 0);
  void Submit(const std::vector<RunRequest>& requests) override { pending_ = requests; }
  std::vector<RunAnswer> Collect() override;
  RunAnswer RunOne(const RunRequest& request) {
    return RunOne(request, scratch_ / "quotient.stderr");
  }

 private:
  RunAnswer RunOne(const RunRequest& request, const std::filesystem::path& stderr_file);

  std::filesystem::path binary_, scratch_;
  int workers_;
  std::vector<RunRequest> pending_;
};

class OracleEngine : public Engine {
 public:
  OracleEngine(std::vector<std::string> command, std::filesystem::path stderr_file,
               int timeout_seconds = 300)
      : command_(std::move(command)),
        stderr_file_(std::move(stderr_file)),
        timeout_seconds_(timeout_seconds) {}
  ~OracleEngine() override { process_.Stop(); }

  void Submit(const std::vector<RunRequest>& requests) override;
  std::vector<RunAnswer> Collect() override;

 private:
  bool EnsureStarted();

  std::vector<std::string> command_;
  std::filesystem::path stderr_file_;
  int timeout_seconds_;
  LineProcess process_;
  std::vector<std::string> pending_ids_;
  std::string start_error_;
};

}  // namespace quotient::kaidiff
