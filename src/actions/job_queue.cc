#include "actions/job_queue.h"

#include <algorithm>

#include "actions/job_tasks.h"
#include "fairshare/queue_order.h"

namespace quotient::actions {
namespace {

// 0 below the gang minimum, 1 at it, 2 above it.
int ElasticState(const framework::Session& session, const core::Job& job) {
  int32_t allocated = 0;
  int32_t minimum = 0;
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    allocated += ActiveAllocated(session, sg);
    minimum += sg.min_member;
  }
  return allocated < minimum ? 0 : (allocated == minimum ? 1 : 2);
}

}  // namespace

std::string NotReadyMessage(const core::Snapshot& snapshot, const core::Job& job) {
  for (const core::SubGroup& sg : job.sub_groups) {
    if (!sg.leaf) continue;
    int32_t alive = 0;
    int32_t gated = 0;
    for (core::Index i : sg.pods) {
      const core::PodStatus s = snapshot.pods[static_cast<size_t>(i)].status;
      if (s == core::PodStatus::kSucceeded || s == core::PodStatus::kFailed ||
          s == core::PodStatus::kReleasing) {
        continue;
      }
      ++alive;
      if (s == core::PodStatus::kGated) ++gated;
    }
    if (alive - gated < sg.min_member) {
      const std::string where = job.sub_groups.size() > 1 ? " in subgroup " + sg.name : "";
      return "NotReady: the gang needs " + std::to_string(sg.min_member) + " pods" + where +
             ", currently " + std::to_string(alive) + " exist and " + std::to_string(gated) +
             " of them are gated";
    }
  }
  return "";
}

JobQueue::JobQueue(const framework::Session& session, const VirtuallyPending* virtual_pending)
    : snapshot_(&session.snapshot()),
      virtual_pending_(virtual_pending),
      roots_(session.snapshot().RootQueues()),
      candidates_(session.snapshot().queues.size(),
                  std::set<core::Index, JobOrder>(JobOrder{this})),
      leaf_of_(session.snapshot().jobs.size(), core::kNone),
      entries_(session.snapshot().jobs.size()),
      top_(session.snapshot().queues.size(), core::kNone),
      marked_(session.snapshot().queues.size(), false),
      keys_(session.snapshot().queues.size()) {}

void JobQueue::Add(const framework::Session& session, core::Index job) {
  const size_t i = static_cast<size_t>(job);
  const core::Index queue = snapshot_->jobs[i].queue;
  leaf_of_[i] = queue;
  entries_[i] = Describe(session, job);
  candidates_[static_cast<size_t>(queue)].insert(job);
}

JobQueue::JobQueue(const framework::Session& session, int max_jobs_per_queue)
    : JobQueue(session, nullptr) {
  const core::Snapshot& s = session.snapshot();
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const core::Job& job = s.jobs[i];
    if (job.queue == core::kNone || !job.problems.empty()) continue;
    if (!session.shares()[job.queue].usable || !HasPendingTask(session, job)) continue;
    if (!NotReadyMessage(s, job).empty()) continue;
    Add(session, static_cast<core::Index>(i));
  }
  if (max_jobs_per_queue > 0) {
    for (auto& jobs : candidates_) {
      while (jobs.size() > static_cast<size_t>(max_jobs_per_queue))
        jobs.erase(std::prev(jobs.end()));
    }
  }
}

JobQueue::JobQueue(const framework::Session& session, const std::vector<core::Index>& extra,
                   const VirtuallyPending* virtual_pending, RequestCache* requests)
    : JobQueue(session, virtual_pending) {
  const core::Snapshot& s = session.snapshot();
  if (requests != nullptr) {
    shared_requests_ = requests;
    shared_requests_->resize(s.jobs.size());
    own_request_.assign(s.jobs.size(), false);
    for (core::Index job : extra) own_request_[static_cast<size_t>(job)] = true;
  }
  // The order of the jobs in `extra` is all a victim solver reads. A subtree without any of them
  // can only change that order through the job that stands for a parent it is under when that
  // parent is compared with its siblings; the top-level queues have none to compare with, and
  // nor has a queue that is the only one of its level with such jobs. So, from the top, the
  // subtrees without any are left out, level by level, while one queue alone has them (their
  // pops would change no other queue's state; the choice above them is made afresh at every
  // pop).
  std::vector<char> relevant(s.queues.size(), 0);
  for (core::Index job : extra) {
    for (core::Index q = s.jobs[static_cast<size_t>(job)].queue; q != core::kNone;
         q = session.shares()[q].parent) {
      relevant[static_cast<size_t>(q)] = 1;
    }
  }
  std::vector<char> left_out(s.queues.size(), 0);
  for (const std::vector<core::Index>* level = &roots_;;) {
    core::Index only = core::kNone;
    size_t kept = 0;
    for (core::Index q : *level) {
      if (relevant[static_cast<size_t>(q)]) {
        only = q;
        ++kept;
      } else {
        left_out[static_cast<size_t>(q)] = 1;
      }
    }
    if (kept != 1 || session.shares()[only].children.empty()) break;
    level = &session.shares()[only].children;
  }
  const auto under_left_out = [&](core::Index queue) {
    for (core::Index q = queue; q != core::kNone; q = session.shares()[q].parent) {
      if (left_out[static_cast<size_t>(q)]) return true;
    }
    return false;
  };
  const auto add = [&](core::Index index) {
    const core::Job& job = s.jobs[static_cast<size_t>(index)];
    if (job.queue == core::kNone || !job.problems.empty()) return;
    if (under_left_out(job.queue)) return;
    if (!session.shares()[job.queue].usable || leaf_of_[static_cast<size_t>(index)] != core::kNone)
      return;
    Add(session, index);
  };
  for (size_t i = 0; i < s.jobs.size(); ++i) {
    const core::Job& job = s.jobs[i];
    if (job.queue == core::kNone || under_left_out(job.queue)) continue;
    if (HasPendingTask(session, job)) add(static_cast<core::Index>(i));
  }
  for (core::Index job : extra) add(job);
  left_out_ = std::move(left_out);
}

JobQueue::Entry JobQueue::Describe(const framework::Session& session, core::Index job) const {
  return {std::nullopt, ElasticState(session, session.job(job))};
}

const core::ShareVector& JobQueue::RequestOfJob(const framework::Session& session,
                                                core::Index job) const {
  const size_t i = static_cast<size_t>(job);
  std::optional<core::ShareVector>& request = shared_requests_ != nullptr && !own_request_[i]
                                                  ? (*shared_requests_)[i]
                                                  : entries_[i].request;
  if (!request) {
    request = RequestOf(session, SelectTasks(session, session.job(job), virtual_pending_).pods);
  }
  return *request;
}

void JobQueue::MarkPath(const framework::Session& session, core::Index queue) {
  for (core::Index at = queue; at != core::kNone; at = session.shares()[at].parent) {
    marked_[static_cast<size_t>(at)] = true;
  }
}

void JobQueue::Push(const framework::Session& session, core::Index job) {
  const core::Index leaf = snapshot_->jobs[static_cast<size_t>(job)].queue;
  const bool was_linked = !candidates_[static_cast<size_t>(leaf)].empty();
  Add(session, job);
  if (!was_linked) Link(session, leaf);
  MarkPath(session, leaf);
}

bool JobQueue::HasJobs(const framework::Session& session, core::Index queue) const {
  const fairshare::QueueShare& q = session.shares()[queue];
  if (q.children.empty()) return !candidates_[static_cast<size_t>(queue)].empty();
  return std::any_of(q.children.begin(), q.children.end(),
                     [&](core::Index child) { return HasJobs(session, child); });
}

void JobQueue::Link(const framework::Session& session, core::Index queue) {
  // KAI's PushJob into a leaf its heap had pruned: a new node, pushed into its parent's heap,
  // which takes it as its top only when it goes before the top there; a parent that was pruned
  // too is new, with it alone, and is pushed into its own parent the same way.
  for (core::Index at = queue;;) {
    const core::Index parent = session.shares()[at].parent;
    const std::vector<core::Index>& siblings =
        parent == core::kNone ? roots_ : session.shares()[parent].children;
    const bool parent_had_jobs =
        parent == core::kNone || std::any_of(siblings.begin(), siblings.end(), [&](core::Index c) {
          return c != at && HasJobs(session, c);
        });
    core::Index& top = parent == core::kNone ? root_top_ : top_[static_cast<size_t>(parent)];
    const std::optional<core::Index> mine = Representative(session, at);
    const std::optional<core::Index> theirs =
        top == core::kNone || top == at ? std::nullopt : Representative(session, top);
    if (!theirs || (mine && fairshare::CompareQueueKeys(session.shares(), KeyOf(session, at, *mine),
                                                        KeyOf(session, top, *theirs)) < 0)) {
      top = at;
    }
    if (parent_had_jobs) return;
    at = parent;
  }
}

void JobQueue::Unlink(const framework::Session& session, core::Index queue) {
  // KAI's handlePopFromNode: a node left without jobs leaves its parent's heap, whose new top
  // is chosen then, before the popped job is placed; a parent left empty goes the same way.
  for (core::Index at = queue;;) {
    const core::Index parent = session.shares()[at].parent;
    if (parent == core::kNone) {
      root_top_ = BestChild(session, roots_);
      return;
    }
    core::Index& top = top_[static_cast<size_t>(parent)];
    top = BestChild(session, session.shares()[parent].children);
    if (top != core::kNone) return;
    at = parent;
  }
}

bool JobQueue::JobBefore(core::Index a, core::Index b) const {
  const core::Job& x = snapshot_->jobs[static_cast<size_t>(a)];
  const core::Job& y = snapshot_->jobs[static_cast<size_t>(b)];
  if (x.priority != y.priority) return x.priority > y.priority;
  const int sx = entries_[static_cast<size_t>(a)].elastic_state;
  const int sy = entries_[static_cast<size_t>(b)].elastic_state;
  if (sx != sy) return sx < sy;
  if (x.creation_time != y.creation_time) return x.creation_time < y.creation_time;
  if (x.uid != y.uid) return x.uid < y.uid;
  return x.key < y.key;
}

std::optional<core::Index> JobQueue::Representative(const framework::Session& session,
                                                    core::Index queue) const {
  const fairshare::QueueShare& q = session.shares()[queue];
  if (!q.usable || (!left_out_.empty() && left_out_[static_cast<size_t>(queue)])) {
    return std::nullopt;
  }
  if (q.children.empty()) {
    const auto& jobs = candidates_[static_cast<size_t>(queue)];
    if (jobs.empty()) return std::nullopt;
    return *jobs.begin();
  }
  core::Index& top = top_[static_cast<size_t>(queue)];
  if (top != core::kNone) {
    if (std::optional<core::Index> job = Representative(session, top)) return job;
  }
  // Not chosen yet, or its subtree ran out of jobs (KAI takes an empty node out of its parent's
  // heap, which re-sorts it): choose now.
  top = BestChild(session, q.children);
  return top == core::kNone ? std::nullopt : Representative(session, top);
}

const fairshare::QueueOrderKey& JobQueue::KeyOf(const framework::Session& session,
                                                core::Index queue, core::Index job) const {
  CachedKey& cached = keys_[static_cast<size_t>(queue)];
  if (!cached.valid || cached.job != job ||
      session.shares().ChangedAt(queue) > cached.shares_version) {
    cached = {true, session.shares().version(), job,
              fairshare::OrderKeyOf(session.shares(), {queue, RequestOfJob(session, job), {}})};
  }
  return cached.key;
}

core::Index JobQueue::BestChild(const framework::Session& session,
                                const std::vector<core::Index>& queues) const {
  core::Index best = core::kNone;
  const fairshare::QueueOrderKey* best_key = nullptr;
  for (core::Index queue : queues) {
    const std::optional<core::Index> job = Representative(session, queue);
    if (!job) continue;
    const fairshare::QueueOrderKey& key = KeyOf(session, queue, *job);
    if (best_key == nullptr || fairshare::CompareQueueKeys(session.shares(), key, *best_key) < 0) {
      best = queue;
      best_key = &key;
    }
  }
  return best;
}

std::optional<core::Index> JobQueue::Pop(const framework::Session& session) {
  // Down from the top-level queues, as KAI's traverseToLeaf: at each level the chosen child is
  // kept unless it is marked or has nothing left (getNextNode: Fix(0) only for a marked top).
  core::Index* top = &root_top_;
  const std::vector<core::Index>* children = &roots_;
  while (true) {
    if (*top == core::kNone || marked_[static_cast<size_t>(*top)] ||
        !Representative(session, *top)) {
      *top = BestChild(session, *children);
    }
    if (*top == core::kNone) return std::nullopt;
    const core::Index queue = *top;
    marked_[static_cast<size_t>(queue)] = false;
    const fairshare::QueueShare& q = session.shares()[queue];
    if (q.children.empty()) break;
    top = &top_[static_cast<size_t>(queue)];
    children = &q.children;
  }
  const core::Index leaf = *top;
  auto& jobs = candidates_[static_cast<size_t>(leaf)];
  const core::Index job = *jobs.begin();
  jobs.erase(jobs.begin());
  if (jobs.empty()) Unlink(session, leaf);
  MarkPath(session, leaf);
  return job;
}

}  // namespace quotient::actions
