// Statement: an undoable log of virtual changes to a session's ClusterState (KAI's Statement,
// kai-reference §2.2).
//
//   Allocate  the pod takes idle resources on a node; its queue's allocation grows.
//   Pipeline  the pod is promised resources that releasing pods are giving back (idle first,
//             then releasing); it will be placed when they are gone. Its queue's allocation
//             grows as for Allocate (KAI's Statement.Pipeline fires the same allocate event).
//   Evict     the pod starts releasing: its resources move to the node's releasing pool and its
//             queue's allocation shrinks.
// Checkpoint() marks a point; Rollback(cp) undoes everything after it in reverse; Discard()
// undoes everything; Commit() turns the surviving operations, in order, into the session's
// decisions. A Statement that is destroyed without Commit() discards itself, so an action that
// returns early never leaves half a gang behind.
#pragma once

#include <cstdint>
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

  size_t Checkpoint() const { return ops_.size(); }
  void Rollback(size_t checkpoint);
  void Discard() { Rollback(0); }
  void Commit();

  // Every Allocate after `checkpoint` becomes a Pipeline to the same place (a gang with any
  // pipelined member is wholly pipelined).
  void ConvertAllocatedToPipelined(size_t checkpoint);

  // Whether any operation after `checkpoint` is a Pipeline.
  bool HasPipelinedSince(size_t checkpoint) const;

 private:
  enum class Kind { kAllocate, kPipeline, kEvict };
  struct Op {
    Kind kind;
    Index pod;
    Placement placement;
    PodState before;
    core::ResourceVector from_releasing;      // kPipeline: part taken from the releasing pool
    std::vector<Quantity> device_releasing;   // kPipeline: per device, taken from releasing
    std::vector<DeviceState> devices_before;  // the placement's devices before the op
    std::string reason;                       // kEvict
    uint64_t version_before = 0;              // the state's version, restored by Undo
  };

  void Apply(Op& op);
  void Undo(const Op& op);
  void PlaceOnDevices(Op& op, bool pipelined);

  Session& session_;
  std::string action_;
  std::vector<Op> ops_;
  bool committed_ = false;
};

}  // namespace quotient::framework
