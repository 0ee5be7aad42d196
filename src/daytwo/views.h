// What `kubectl quotient queues|why|top|what-if` print, as documents (the -o json|yaml output;
// src/cli/plugin_tables.cc renders them as tables), computed from a cluster's objects and one
// scheduling cycle run on them offline (the same core the scheduler runs). Pure: no I/O.
//
// Units in the documents: GPUs as decimals ("2.5"), CPU in cores, memory in GB (10^9 bytes).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/objects.h"
#include "scheduler/run.h"

namespace quotient::daytwo {

using Document = nlohmann::ordered_json;

// The queue tree, parents before children (roots and siblings by name), each queue per resource:
// deserved, limit, over-quota weight, fair share, allocated, requested, and how far it is over its
// deserved (borrowing) or under it while others borrow (lending); then "who borrows from whom"
// per parent, in words.
struct QueueRow {
  std::string name;
  int depth = 0;
  std::string parent;
};
std::vector<QueueRow> QueueTree(const scheduler::RunReport& report);
// {"queues": [...], "borrowing": ["under dept-a: team-b borrows ...", ...]}
Document QueuesDocument(const scheduler::RunReport& report, const core::ClusterObjects& objects);

// Why a pod (namespace/name) or PodGroup (namespace/name) is where it is: its status and the
// scheduler's reason, its queue's numbers, the nodes that come closest to fitting it (free GPUs),
// and what would change the outcome. Error when neither exists.
// `next` is a cycle with the configured actions (what would happen to it), `current` one with
// none (the queue's numbers and the nodes' free GPUs as they are).
Result<Document> WhyDocument(const std::string& target, const scheduler::RunReport& next,
                             const scheduler::RunReport& current,
                             const core::ClusterObjects& objects,
                             const std::string& node_pool_label);

// GPUs per node (whole GPUs by queue, shared GPUs with their fractions, free, health) and per
// queue (GPUs, running and pending pods).
Document TopDocument(const scheduler::RunReport& report, const core::ClusterObjects& objects,
                     const std::string& node_pool_label);

// What the next cycle would do after the proposed changes (`after`) against what it would do
// without them (`before`, the same configured actions): its decisions, each marked whether it
// would happen anyway, each queue's fair share and allocation at the end of either cycle, and the
// pods still pending.
Document WhatIfDocument(const scheduler::RunReport& before, const scheduler::RunReport& after);

// `changes` laid over `base`: an object of the same kind, namespace and name replaces the base's,
// others are added.
void Overlay(core::ClusterObjects& base, core::ClusterObjects changes);

}  // namespace quotient::daytwo
