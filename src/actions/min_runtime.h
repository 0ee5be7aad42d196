// Min-runtime protection (KAI's minruntime plugin, kai-reference §3.8): a job that started less
// than its min-runtime ago cannot be a victim (an elastic one may still lose pods above its
// minimum). Started = the PodGroup's kai.scheduler/last-start-timestamp.
//
// The min-runtime: preempt reads `preemptMinRuntime` from the victim's queue, then its ancestors,
// then the plugin argument `defaultPreemptMinRuntime`; reclaim reads `reclaimMinRuntime` the same
// way, starting (method `lca`, the default) from the victim's ancestor just below the lowest
// common ancestor with the reclaimer's queue, or (method `queue`) from the victim's own queue;
// then `defaultReclaimMinRuntime`. Plugin arguments are Go durations; default 0 (no protection).
#pragma once

#include <chrono>

#include "framework/session.h"

namespace quotient::actions {

enum class MinRuntimeKind { kPreempt, kReclaim };

// Whether `victim_job` is protected from `preemptor_queue` right now.
bool IsProtectedByMinRuntime(const framework::Session& session, core::Index victim_job,
                             core::Index preemptor_queue, MinRuntimeKind kind);

// KAI's leveled queue: walking both queues' paths from the top, the first queue on `b`'s path
// that differs from `a`'s (so siblings under the lowest common ancestor; `b`'s top-level queue
// when they share none; `b` itself when its path is a prefix of `a`'s).
core::Index LeveledQueue(const framework::Session& session, core::Index a, core::Index b);

}  // namespace quotient::actions
