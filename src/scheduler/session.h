// Session: one scheduling cycle's working state over an immutable snapshot.
//
// Opening a session computes each queue's fair share (proportion) from the snapshot; actions then
// read the snapshot and the shares and record decisions and pending reasons. The session owns no
// clock: `now` comes from the snapshot. Later work (the allocate issue) adds the statement that
// makes virtual placements undoable; actions already talk to the session only.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/snapshot.h"
#include "fairshare/fair_share.h"
#include "fairshare/queue_shares.h"
#include "scheduler/config.h"
#include "scheduler/decision.h"

namespace quotient::scheduler {

class Session {
 public:
  Session(const core::Snapshot& snapshot, const SchedulerConfig& config);

  const core::Snapshot& snapshot() const { return snapshot_; }
  const SchedulerConfig& config() const { return config_; }
  fairshare::QueueShares& shares() { return shares_; }
  const fairshare::QueueShares& shares() const { return shares_; }

  void Record(Decision decision) { decisions_.push_back(std::move(decision)); }
  const std::vector<Decision>& decisions() const { return decisions_; }

  // Why a job (by snapshot index) was not scheduled in this cycle; the first reason per action is
  // kept in order of recording.
  void AddJobReason(core::Index job, std::string reason);
  const std::vector<std::string>& JobReasons(core::Index job) const;

 private:
  const core::Snapshot& snapshot_;
  const SchedulerConfig& config_;
  fairshare::QueueShares shares_;
  std::vector<Decision> decisions_;
  std::map<core::Index, std::vector<std::string>> job_reasons_;
};

// Reads the proportion plugin's arguments from the configuration (kValue, default 1.0).
fairshare::FairShareOptions FairShareOptionsFrom(const SchedulerConfig& config);

}  // namespace quotient::scheduler
