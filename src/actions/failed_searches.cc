#include "actions/failed_searches.h"

#include <algorithm>

#include "actions/job_tasks.h"
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

namespace {

// Element-wise <= (KAI's ResourceVector.LessEqual); both vectors have the same layout.
bool LessEqual(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] > b[i]) return false;
  }
  return true;
}

// KAI's jobEasierToScheduleComparison: `job` against the failed representative `failed`.
bool EasierThan(const std::vector<std::vector<int64_t>>& job,
                const std::vector<std::vector<int64_t>>& failed) {
  if (job.empty() || failed.empty()) return false;
  if (failed.size() > job.size()) return true;
  for (size_t i = 0; i < failed.size(); ++i) {
    if (LessEqual(job[i], failed[i])) {
      if (LessEqual(failed[i], job[i])) continue;  // equal
      return true;
    }
  }
  return false;
}

// KAI's isPodGroupFootprintSmaller.
bool FootprintSmaller(const std::vector<std::vector<int64_t>>& a,
                      const std::vector<std::vector<int64_t>>& b) {
  if (a.empty() || b.empty() || a.size() > b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!LessEqual(a[i], b[i])) return false;
  }
  return true;
}

}  // namespace

std::string SmallestFailedJobs::SignatureOf(core::Index job_index) const {
  const core::Job& job = session_.job(job_index);
  // Per leaf subgroup (KAI's PodSet), the sorted signatures of its pods that are not active
  // allocated; the job's is the sorted list of those.
  std::vector<std::string> sets;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    std::vector<std::string> pods;
    for (core::Index p : sg.pods) {
      if (IsActiveAllocated(session_.state().pod(p).status)) continue;
      const core::Pod& pod = session_.pod(p);
      // Pod affinity terms are not compared field by field: such a job shares with no other.
      if (!pod.affinity.required_pod_affinity.empty() ||
          !pod.affinity.required_pod_anti_affinity.empty()) {
        return "\x1d" + job.key;
      }
      std::string s = pod.priority_class_name;
      const auto add = [&s](const std::string& text) {
        s += '\x1f';
        s += text;
      };
      AppendNodeConstraints(pod, s);
      for (const core::HostPort& port : pod.host_ports) {
        add("p");
        add(std::to_string(port.port));
      }
      pods.push_back(std::move(s));
    }
    if (pods.empty()) continue;  // all active allocated: no constraints (KAI: "")
    std::sort(pods.begin(), pods.end());
    std::string set;
    for (const std::string& p : pods) set += p + '\x1e';
    sets.push_back(std::move(set));
  }
  std::sort(sets.begin(), sets.end());
  std::string out;
  for (const std::string& set : sets) out += set + '\x1d';
  return out;
}

SmallestFailedJobs::Footprint SmallestFailedJobs::FootprintOf(core::Index job_index) const {
  Footprint f;
  for (core::Index p : session_.job(job_index).pods) {
    if (session_.state().pod(p).status != core::PodStatus::kPending) continue;
    std::vector<int64_t> r;
    const core::ResourceVector& req = session_.pod(p).request;
    r.push_back(session_.QuotaOf(p, core::kNone)[core::ShareResource::kGpu].value());
    r.push_back(req.cpu_milli.value());
    r.push_back(req.memory_bytes.value());
    r.push_back(req.gpu_memory_mib.value());
    f.requests.push_back(std::move(r));
  }
  std::sort(f.requests.begin(), f.requests.end());
  return f;
}

bool SmallestFailedJobs::Easier(core::Index job) const {
  if (failed_.empty()) return true;  // nothing failed yet: no signature to work out
  auto it = failed_.find(SignatureOf(job));
  if (it == failed_.end()) return true;
  return EasierThan(FootprintOf(job).requests, it->second.requests);
}

void SmallestFailedJobs::Failed(core::Index job) {
  Footprint f = FootprintOf(job);
  const std::string signature = SignatureOf(job);
  auto it = failed_.find(signature);
  if (it != failed_.end() && !FootprintSmaller(f.requests, it->second.requests)) return;
  failed_[signature] = std::move(f);
}

}  // namespace quotient::actions
