// A one-line progress bar for long offline runs, redrawn in place on a terminal:
//   simulating [=========>          ] 47%  t 3d04h  41203/82247 pods  90114 cycles
// Several runs (a comparison) report into one bar, which shows the one furthest behind.
// Redraws at most every 200 ms of wall time, so a run of 150,000 cycles does not spend its time
// printing.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <vector>

#include "simulate/simulation.h"

namespace quotient::cli {

class ProgressBar {
 public:
  ProgressBar(std::ostream& out, size_t runs);
  ~ProgressBar();  // clears the line
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // From any thread: run `run` has come this far.
  void Update(size_t run, const simulate::Progress& progress);

 private:
  void Draw();

  std::ostream& out_;
  std::mutex mu_;
  std::vector<simulate::Progress> runs_;
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

// "3d04h", "5h12m", "7m30s", "45s".
std::string ShortDuration(std::chrono::seconds d);

}  // namespace quotient::cli
