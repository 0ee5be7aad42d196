// Session: one scheduling cycle's working state over an immutable snapshot.
//
// Opening a session computes each queue's fair share (KAI's proportion plugin) and lays a
// ClusterState overlay over the snapshot. Actions change the overlay only through Statements,
// which keep the queues' allocation in step (so a what-if sees its own effects) and, on commit,
// append decisions. The session owns no clock: `now` comes from the snapshot.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/accounting.h"
#include "core/snapshot.h"
#include "fairshare/fair_share.h"
#include "fairshare/queue_shares.h"
#include "framework/cluster_state.h"
#include "framework/config.h"
#include "framework/decision.h"

namespace quotient::framework {

class Session {
 public:
  Session(const core::Snapshot& snapshot, const SchedulerConfig& config);
  // The session keeps references to both: temporaries would dangle.
  Session(core::Snapshot&&, const SchedulerConfig&) = delete;
  Session(const core::Snapshot&, SchedulerConfig&&) = delete;

  const core::Snapshot& snapshot() const { return snapshot_; }
  const SchedulerConfig& config() const { return config_; }
  fairshare::QueueShares& shares() { return shares_; }
  const fairshare::QueueShares& shares() const { return shares_; }
  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }

  const core::Pod& pod(Index i) const { return snapshot_.pods[static_cast<size_t>(i)]; }
  const core::Job& job(Index i) const { return snapshot_.jobs[static_cast<size_t>(i)]; }
  const core::Node& node(Index i) const { return snapshot_.nodes[static_cast<size_t>(i)]; }
  const core::Queue& queue(Index i) const { return snapshot_.queues[static_cast<size_t>(i)]; }

  // Pods with required pod anti-affinity terms (few in practice): the incoming pod must not
  // match them where they run, so the predicate scans only these.
  const std::vector<Index>& pods_with_anti_affinity() const { return pods_with_anti_affinity_; }

  // What the pod counts for in its queue on `node_index` (kNone: while pending).
  core::ShareVector QuotaOf(Index pod, Index node_index) const;

  // PodDisruptionBudgets: whether evicting `pods` (on top of `already`, victims chosen so far and
  // not yet committed, counted per budget) stays within what each budget still allows this
  // cycle. A pod covered by more than one budget is never evictable (the Eviction API refuses).
  bool WithinDisruptionBudgets(const std::vector<Index>& pods,
                               const std::map<Index, int32_t>& already) const;
  // Counts committed evictions against their budgets.
  void SpendDisruptions(const std::vector<Index>& pods);

  // Committed decisions. A listener, when set, hears each one as it is committed (with the key
  // of the pod's PodGroup), so a service can start binding while the cycle goes on: a committed
  // decision is never taken back later in the cycle.
  using DecisionListener = std::function<void(const Decision&, const std::string& pod_group)>;
  void SetDecisionListener(DecisionListener listener) { listener_ = std::move(listener); }
  void Record(Decision decision);
  const std::vector<Decision>& decisions() const { return decisions_; }

  // A change to a PodGroup's annotations the scheduler makes (last-start and stale timestamps);
  // `value` empty = remove the annotation. Applied to the objects between cycles.
  struct AnnotationUpdate {
    std::string pod_group;  // ns/name
    std::string key;
    std::optional<std::string> value;
  };
  void RecordAnnotation(AnnotationUpdate update) { annotations_.push_back(std::move(update)); }
  const std::vector<AnnotationUpdate>& annotations() const { return annotations_; }

  // Why a job was not scheduled in this cycle, in order of recording.
  void AddJobReason(Index job, std::string reason);
  const std::vector<std::string>& JobReasons(Index job) const;

 private:
  const core::Snapshot& snapshot_;
  const SchedulerConfig& config_;
  fairshare::QueueShares shares_;
  ClusterState state_;
  std::vector<Index> pods_with_anti_affinity_;
  std::vector<int32_t> disruptions_left_;  // by budget
  std::vector<Decision> decisions_;
  DecisionListener listener_;
  std::vector<AnnotationUpdate> annotations_;
  std::map<Index, std::vector<std::string>> job_reasons_;
};

// Reads the proportion plugin's arguments from the configuration (kValue, default 1.0).
fairshare::FairShareOptions FairShareOptionsFrom(const SchedulerConfig& config);

}  // namespace quotient::framework
