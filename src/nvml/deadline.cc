#include "nvml/deadline.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace quotient::nvml {

// A thread that runs one task at a time, handed over under its mutex.
struct DeadlineRunner::Worker {
  std::mutex mutex;
  std::condition_variable wake;
  std::function<void()> task;  // set by the runner; taken by the worker when it starts it
  bool stop = false;           // the runner is going away: end when idle
  bool abandoned = false;      // the runner gave up on the task: end when it returns
  std::thread thread;          // touched only by the runner
};

namespace {

// Set by the task's wrapper when the call has returned.
struct Completion {
  std::mutex mutex;
  std::condition_variable done_changed;
  bool done = false;
};

}  // namespace

DeadlineRunner::DeadlineRunner(Options options)
    : options_(options), stuck_(std::make_shared<std::atomic<std::size_t>>(0)) {}

DeadlineRunner::~DeadlineRunner() {
  if (worker_ == nullptr) return;
  {
    std::lock_guard lock(worker_->mutex);
    worker_->stop = true;
  }
  worker_->wake.notify_one();
  worker_->thread.join();  // idle, or finishing a call that completed in time
}

std::size_t DeadlineRunner::stuck_workers() const { return stuck_->load(); }

// The worker holds its own references to its Worker and to the stuck counter, so an abandoned
// worker needs nothing from the runner that abandoned it.
void DeadlineRunner::WorkerLoop(std::shared_ptr<Worker> worker,
                                std::shared_ptr<std::atomic<std::size_t>> stuck) {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(worker->mutex);
      worker->wake.wait(lock, [&] { return worker->task || worker->stop || worker->abandoned; });
      if (!worker->task) {
        // Abandoned after its call returned but before the runner noticed: counted all the same.
        if (worker->abandoned) stuck->fetch_sub(1);
        return;
      }
      task = std::move(worker->task);
      worker->task = nullptr;
    }
    task();
    std::lock_guard lock(worker->mutex);
    if (worker->abandoned) {
      stuck->fetch_sub(1);
      return;
    }
  }
}

DeadlineOutcome DeadlineRunner::Execute(std::function<void()> task,
                                        std::chrono::milliseconds deadline) {
  if (stuck_->load() >= options_.max_stuck_workers) return DeadlineOutcome::kSaturated;
  if (worker_ == nullptr) {
    worker_ = std::make_shared<Worker>();
    worker_->thread = std::thread(WorkerLoop, worker_, stuck_);
  }

  auto completion = std::make_shared<Completion>();
  {
    std::lock_guard lock(worker_->mutex);
    worker_->task = [task = std::move(task), completion] {
      task();
      {
        std::lock_guard done_lock(completion->mutex);
        completion->done = true;
      }
      completion->done_changed.notify_all();
    };
  }
  worker_->wake.notify_one();

  {
    std::unique_lock lock(completion->mutex);
    if (completion->done_changed.wait_for(lock, deadline, [&] { return completion->done; })) {
      return DeadlineOutcome::kCompleted;
    }
  }
  // Too late: leave the call to its worker, which ends when it returns; the next call gets a
  // new one.
  stuck_->fetch_add(1);
  {
    std::lock_guard lock(worker_->mutex);
    worker_->abandoned = true;
  }
  worker_->wake.notify_one();
  worker_->thread.detach();
  worker_.reset();
  return DeadlineOutcome::kTimedOut;
}

}  // namespace quotient::nvml
