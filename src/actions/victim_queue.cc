#include "actions/victim_queue.h"

#include <algorithm>

#include "actions/job_tasks.h"
#include "fairshare/queue_order.h"

namespace quotient::actions {
namespace {

using core::Index;

// Pods the job holds in this cycle that KAI counts as active but Quotient never takes back
// (allocated or pipelined earlier in the cycle).
bool HeldThisCycle(core::PodStatus s) {
  return s == core::PodStatus::kAllocated || s == core::PodStatus::kPipelined;
}

// Per leaf subgroup (by index into Job::sub_groups): how many pods it holds, counting `pods`
// and the pods it got earlier in this cycle.
std::map<Index, int32_t> HeldPerSubGroup(const framework::Session& session, const core::Job& job,
                                         const std::vector<Index>& pods) {
  std::map<Index, int32_t> held;
  for (size_t s = 0; s < job.sub_groups.size(); ++s) {
    const core::SubGroup& sg = job.sub_groups[s];
    if (!sg.leaf) continue;
    int32_t n = 0;
    for (Index p : sg.pods) {
      if (HeldThisCycle(session.state().pod(p).status)) ++n;
      if (std::find(pods.begin(), pods.end(), p) != pods.end()) ++n;
    }
    held[static_cast<Index>(s)] = n;
  }
  return held;
}

// KAI's elastic minAvailableState, as a victim rank: 0 above its minimum (some leaf subgroup
// above, none below), 1 exactly at it, 2 below it.
int ElasticRank(const framework::Session& session, const core::Job& job,
                const std::vector<Index>& pods) {
  bool exactly = true;
  for (const auto& [s, n] : HeldPerSubGroup(session, job, pods)) {
    const int32_t min = job.sub_groups[static_cast<size_t>(s)].min_member;
    if (n < min) return 2;
    if (n > min) exactly = false;
  }
  return exactly ? 1 : 0;
}

}  // namespace

std::vector<Index> NextEvictionUnit(const framework::Session& session, Index job_index,
                                    const std::vector<Index>& pods, bool& all) {
  const core::Job& job = session.job(job_index);
  const std::map<Index, int32_t> held = HeldPerSubGroup(session, job, pods);
  // The root's members must all be satisfied for an elastic draw (KAI: no satisfied member, no
  // elastic phase; and with every member required, phase 2 never applies).
  bool all_satisfied = !held.empty();
  for (const auto& [s, n] : held) {
    all_satisfied = all_satisfied && n >= job.sub_groups[static_cast<size_t>(s)].min_member;
  }
  if (all_satisfied) {
    // The leaf subgroup with a surplus that KAI's reverse subgroup order puts first: the highest
    // held/minimum ratio (an optional subgroup, minimum 0, before required ones; among optional
    // ones the one holding more), ties by name.
    Index best = core::kNone;
    const auto before = [&](Index a, Index b) {
      const core::SubGroup& x = job.sub_groups[static_cast<size_t>(a)];
      const core::SubGroup& y = job.sub_groups[static_cast<size_t>(b)];
      const int64_t nx = held.at(a);
      const int64_t ny = held.at(b);
      if ((x.min_member == 0) != (y.min_member == 0)) return x.min_member == 0;
      if (x.min_member == 0) {
        if (nx != ny) return nx > ny;
      } else if (nx * y.min_member != ny * x.min_member) {
        return nx * y.min_member > ny * x.min_member;
      }
      return x.name < y.name;
    };
    for (const auto& [s, n] : held) {
      if (n <= job.sub_groups[static_cast<size_t>(s)].min_member) continue;
      // Only pods it still holds as victims can go (the rest were placed in this cycle).
      const core::SubGroup& sg = job.sub_groups[static_cast<size_t>(s)];
      const bool has_victim = std::any_of(sg.pods.begin(), sg.pods.end(), [&](Index p) {
        return std::find(pods.begin(), pods.end(), p) != pods.end();
      });
      if (has_victim && (best == core::kNone || before(s, best))) best = s;
    }
    if (best != core::kNone) {
      // The subgroup's last pod in task order goes first.
      Index last = core::kNone;
      for (Index p : job.sub_groups[static_cast<size_t>(best)].pods) {
        if (std::find(pods.begin(), pods.end(), p) == pods.end()) continue;
        if (last == core::kNone || TaskBefore(session.pod(last), session.pod(p))) last = p;
      }
      all = false;
      return {last};
    }
  }
  all = true;
  return pods;
}

bool VictimQueue::EntryOrder::operator()(const Entry& a, const Entry& b) const {
  const core::Job& x = session->job(a.job);
  const core::Job& y = session->job(b.job);
  if (x.priority != y.priority) return x.priority < y.priority;
  if (a.elastic_rank != b.elastic_rank) return a.elastic_rank < b.elastic_rank;
  if (x.creation_time != y.creation_time) return x.creation_time > y.creation_time;
  if (x.uid != y.uid) return x.uid > y.uid;
  return a.job > b.job;
}

VictimQueue::VictimQueue(const framework::Session& session, VictimPool& pool, Index preemptor,
                         std::function<bool(Index queue)> queue_eligible,
                         std::function<bool(const core::Job&)> eligible,
                         std::function<bool(Index job)> whole_allowed)
    : session_(session),
      pool_(pool),
      preemptor_(preemptor),
      eligible_(std::move(eligible)),
      whole_allowed_(std::move(whole_allowed)) {
  const std::vector<core::Queue>& queues = session.snapshot().queues;
  std::set<Index> inner;
  for (Index queue : pool_.QueuesWithVictims()) {
    if (queue_eligible && !queue_eligible(queue)) continue;
    Leaf leaf{pool_.JobsOf(queue), 0, std::set<Entry, EntryOrder>(EntryOrder{&session_}), {}, {}};
    leaves_.emplace(queue, std::move(leaf));
    // Link the queue's ancestors, each child once.
    for (Index at = queue; at != core::kNone;) {
      const Index parent = queues[static_cast<size_t>(at)].parent;
      if (parent == core::kNone) {
        if (std::find(roots_.begin(), roots_.end(), at) == roots_.end()) roots_.push_back(at);
        break;
      }
      std::vector<Index>& kids = kids_[parent];
      if (std::find(kids.begin(), kids.end(), at) != kids.end()) break;
      kids.push_back(at);
      at = parent;
    }
  }
}

VictimQueue::Entry VictimQueue::EntryOf(Index job, std::vector<Index> pods) const {
  Entry e;
  e.job = job;
  for (Index p : pods) {
    if (core::IsAllocatedStatus(session_.state().pod(p).status)) {
      e.allocated += session_.QuotaOf(p, session_.state().pod(p).node);
    }
  }
  e.elastic_rank = ElasticRank(session_, session_.job(job), pods);
  e.pods = std::move(pods);
  return e;
}

const VictimQueue::Entry* VictimQueue::Peek(Leaf& leaf) {
  while (!leaf.fresh && leaf.jobs != nullptr && leaf.next < leaf.jobs->size()) {
    const Index job = (*leaf.jobs)[leaf.next++];
    if (job == preemptor_ || !pool_.Active(job) || !eligible_(session_.job(job))) continue;
    std::vector<Index> pods;
    for (Index p : session_.job(job).pods) {
      const framework::PodState& s = session_.state().pod(p);
      if (IsEvictableStatus(s.status) && s.node != core::kNone) pods.push_back(p);
    }
    std::sort(pods.begin(), pods.end(),
              [&](Index a, Index b) { return TaskBefore(session_.pod(a), session_.pod(b)); });
    if (!pods.empty()) leaf.fresh = EntryOf(job, std::move(pods));
  }
  const Entry* best = leaf.fresh ? &*leaf.fresh : nullptr;
  if (!leaf.returned.empty() &&
      (best == nullptr || EntryOrder{&session_}(*leaf.returned.begin(), *best))) {
    best = &*leaf.returned.begin();
  }
  return best;
}

VictimQueue::Leaf* VictimQueue::BestLeaf(Index queue) {
  if (auto it = leaves_.find(queue); it != leaves_.end()) {
    return Peek(it->second) != nullptr ? &it->second : nullptr;
  }
  auto kids = kids_.find(queue);
  if (kids == kids_.end()) return nullptr;
  // Among the children with victims, the one the fair-share order serves last, each judged with
  // the victims of its own best leaf taken away (KAI's getBestJobFromNode).
  Index worst = core::kNone;
  Leaf* worst_leaf = nullptr;
  fairshare::QueueCandidate worst_candidate;
  for (Index child : kids->second) {
    Leaf* leaf = BestLeaf(child);
    if (leaf == nullptr) continue;
    fairshare::QueueCandidate c{child, {}, leaf->popped_allocated + Peek(*leaf)->allocated};
    if (worst == core::kNone ||
        fairshare::CompareQueues(session_.shares(), c, worst_candidate) > 0) {
      worst = child;
      worst_leaf = leaf;
      worst_candidate = c;
    }
  }
  return worst_leaf;
}

std::optional<VictimUnit> VictimQueue::Next() {
  while (true) {
    // The top level as any other: the queue served last goes first.
    Leaf* best = nullptr;
    Index best_root = core::kNone;
    fairshare::QueueCandidate best_candidate;
    for (Index root : roots_) {
      Leaf* leaf = BestLeaf(root);
      if (leaf == nullptr) continue;
      fairshare::QueueCandidate c{root, {}, leaf->popped_allocated + Peek(*leaf)->allocated};
      if (best_root == core::kNone ||
          fairshare::CompareQueues(session_.shares(), c, best_candidate) > 0) {
        best = leaf;
        best_root = root;
        best_candidate = c;
      }
    }
    if (best == nullptr) return std::nullopt;
    const Entry* top = Peek(*best);
    Entry entry = *top;
    if (best->fresh && &*best->fresh == top) {
      best->fresh.reset();
    } else {
      best->returned.erase(best->returned.begin());
    }
    best->popped_allocated += entry.allocated;
    if (std::optional<VictimUnit> unit = TakeUnit(*best, std::move(entry))) return unit;
  }
}

std::optional<VictimUnit> VictimQueue::TakeUnit(Leaf& leaf, Entry entry) {
  bool all = false;
  std::vector<Index> unit_pods = NextEvictionUnit(session_, entry.job, entry.pods, all);
  if (all && whole_allowed_ && !whole_allowed_(entry.job)) return std::nullopt;
  if (!all) {
    std::vector<Index> rest;
    for (Index p : entry.pods) {
      if (std::find(unit_pods.begin(), unit_pods.end(), p) == unit_pods.end()) rest.push_back(p);
    }
    if (!rest.empty()) leaf.returned.insert(EntryOf(entry.job, std::move(rest)));
  }
  // Evicted in reverse task order, as KAI does (the first placed goes last).
  std::reverse(unit_pods.begin(), unit_pods.end());
  VictimUnit unit{entry.job, std::move(unit_pods)};
  unit.rest = all;
  return unit;
}

}  // namespace quotient::actions
