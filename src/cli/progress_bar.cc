#include "cli/progress_bar.h"

#include <fmt/format.h>

#include <algorithm>

namespace quotient::cli {

constexpr int kBarWidth = 24;
constexpr auto kRedrawEvery = std::chrono::milliseconds(200);

std::string ShortDuration(std::chrono::seconds d) {
  const int64_t s = d.count();
  if (s >= 86400) return fmt::format("{}d{:02d}h", s / 86400, s % 86400 / 3600);
  if (s >= 3600) return fmt::format("{}h{:02d}m", s / 3600, s % 3600 / 60);
  if (s >= 60) return fmt::format("{}m{:02d}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

ProgressBar::ProgressBar(std::ostream& out, size_t runs) : out_(out), runs_(runs) {}

ProgressBar::~ProgressBar() {
  const std::lock_guard<std::mutex> lock(mu_);
  if (drawn_) out_ << "\r\033[K" << std::flush;
}

void ProgressBar::Update(size_t run, const simulate::Progress& progress) {
  const std::lock_guard<std::mutex> lock(mu_);
  runs_.at(run) = progress;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawEvery) return;
  last_draw_ = now;
  Draw();
}

void ProgressBar::Draw() {
  // The run furthest behind, by the share of its pods that have arrived.
  const simulate::Progress* slowest = nullptr;
  for (const simulate::Progress& p : runs_) {
    if (slowest == nullptr || p.arrived * std::max<int64_t>(1, slowest->pods) <
                                  slowest->arrived * std::max<int64_t>(1, p.pods)) {
      slowest = &p;
    }
  }
  if (slowest == nullptr) return;
  const int64_t percent = slowest->pods == 0 ? 100 : slowest->arrived * 100 / slowest->pods;
  const int filled = static_cast<int>(percent * kBarWidth / 100);
  std::string bar(static_cast<size_t>(kBarWidth), ' ');
  std::fill_n(bar.begin(), filled, '=');
  if (filled < kBarWidth) bar[static_cast<size_t>(filled)] = '>';
  out_ << fmt::format("\r\033[Ksimulating [{}] {:>3}%  t {}  {}/{} pods arrived  {} cycles", bar,
                      percent, ShortDuration(slowest->time), slowest->arrived, slowest->pods,
                      slowest->cycles)
       << std::flush;
  drawn_ = true;
}

}  // namespace quotient::cli
