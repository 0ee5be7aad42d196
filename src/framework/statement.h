// Statement: an undoable log of virtual changes to a session's ClusterState (KAI's Statement,
// kai-reference §2.2).
//
//   Allocate  the pod takes idle resources on a node; its queue's allocation grows.
//   Pipeline  the pod is promised resources that releasing pods are giving back (releasing
//             first, then idle); it will be placed when they are gone. Its queue's allocation
//             grows as for Allocate (KAI's Statement.Pipeline fires the same allocate event).
//   Evict     the pod starts releasing: its resources move to the node's releasing pool and its
//             queue's allocation shrinks.
//   Unevict   a pod this statement evicted keeps running where it was after all (KAI's
//             Statement.Pipeline onto the pod's own node, which unevicts): its resources and its
//             queue's allocation come back; Commit records neither the eviction nor this.
// Checkpoint() marks a point; Rollback(cp) undoes everything after it in reverse; Discard()
// undoes everything; Commit() turns the surviving operations, in order, into the session's
// decisions. A Statement that is destroyed without Commit() discards itself, so an action that
// returns early never leaves half a gang behind.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "framework/cluster_state.h"

namespace quotient::framework {

class Session;

class Statement {
 public:
  Statement(Session& session, std::string action);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void Allocate(Index pod, const Placement& placement);
  void Pipeline(Index pod, const Placement& placement);
  void Evict(Index pod, std::string reason);
  // Undoes this statement's eviction of `pod` as a new operation (later ones stay). False,
  // changing nothing, when the statement did not evict it or its devices no longer have room.
  bool Unevict(Index pod);
  // Whether `pod`'s own devices (the ones this statement's eviction freed) still have room for
  // it: nothing placed since took the share it gave back.
  bool CanUnevict(Index pod) const;
  // Unevict for a whole-GPU pod whose own devices pods pipelined by this statement on the same
  // node have taken: those pods are moved, on that node, to devices nobody holds or gives back
  // (a pipelined pod's devices are only this statement's choice), and `pod` is unevicted on its
  // own. False, changing nothing, when that is not enough (too few such devices, a device taken
  // by a pod that is not pipelined here, or no room besides the GPUs).
  bool UnevictMovingPipelined(Index pod);

  size_t Checkpoint() const { return ops_.size(); }
  void Rollback(size_t checkpoint);
  void Discard() { Rollback(0); }
  void Commit();

  // Every Allocate after `checkpoint` becomes a Pipeline (a gang with any pipelined member is
  // wholly pipelined), to the same node; a device it took that nobody held or gave back is
  // exchanged for one only releasing pods hold, where the operations replayed leave one.
  void ConvertAllocatedToPipelined(size_t checkpoint);

  // Whether any operation after `checkpoint` is a Pipeline.
  bool HasPipelinedSince(size_t checkpoint) const;

 private:
  enum class Kind { kAllocate, kPipeline, kEvict, kUnevict };
  struct Op {
    Kind kind;
    Index pod;
    Placement placement;
    PodState before;
    core::ResourceVector from_releasing;      // kPipeline: part taken from the releasing pool;
                                              // kUnevict: the part taken from idle
    std::vector<Quantity> device_releasing;   // kPipeline: per device, taken from releasing
    std::vector<DeviceState> devices_before;  // the placement's devices before the op
    std::string reason;                       // kEvict
    uint64_t version_before = 0;              // the state's version, restored by Undo
  };

  void Apply(Op& op);
  void Undo(const Op& op);
  // Undoes every operation after `checkpoint` and applies them again in order, each with the
  // kind and placement `change` makes of it.
  void Replay(size_t checkpoint, const std::function<void(Kind&, Placement&)>& change);
  void PlaceOnDevices(Op& op, bool pipelined);
  // The eviction of `pod` that is the last operation on it among ops_[0, end), or null.
  const Op* EvictionOf(Index pod, size_t end) const;

  Session& session_;
  std::string action_;
  std::vector<Op> ops_;
  bool committed_ = false;
};

}  // namespace quotient::framework
