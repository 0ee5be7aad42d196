#include "actions/failed_searches.h"

#include "actions/pod_shape.h"

namespace quotient::actions {

FailedSearches::FailedSearches(const framework::Session& session)
    : session_(session),
      enabled_(!session.config().reference_search),
      state_version_(session.state().version()) {}

std::string FailedSearches::KeyOf(core::Index job_index,
                                  const std::vector<core::Index>& tasks) const {
  if (!enabled_ || tasks.empty()) return "";
  const core::Job& job = session_.job(job_index);
  for (core::Index pod : job.pods) {
    if (session_.state().pod(pod).node != core::kNone) return "";
  }
  // Fields are separated by characters that occur in no name, number or shape.
  // The node pool is part of every task's shape.
  std::string key = std::to_string(job.queue) + '\x1e' + std::to_string(job.priority) + '\x1e' +
                    (job.preemptible ? "p" : "n");
  for (core::Index task : tasks) {
    const std::string shape = PodShape(session_, task);
    if (shape.empty()) return "";
    key += '\x1e';
    key += shape;
  }
  return key;
}

void FailedSearches::Forget() {
  if (session_.state().version() == state_version_) return;
  failed_.clear();
  state_version_ = session_.state().version();
}

bool FailedSearches::KnownToFail(const std::string& key) {
  if (key.empty()) return false;
  Forget();
  return failed_.count(key) > 0;
}

void FailedSearches::RecordFailure(std::string key) {
  if (key.empty()) return;
  Forget();
  failed_.insert(std::move(key));
}

}  // namespace quotient::actions
