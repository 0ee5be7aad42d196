#include "framework/statement.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "framework/session.h"

namespace quotient::framework {
namespace {

// Takes `want` from `idle` first and the rest from `releasing`, one resource at a time. Returns
// what came from `releasing`.
Quantity TakeOne(Quantity& idle, Quantity& releasing, Quantity want) {
  const Quantity from_idle = core::Max(Quantity::Zero(), core::Min(want, idle));
  idle -= from_idle;
  const Quantity rest = want - from_idle;
  releasing -= rest;
  return rest;
}

core::ResourceVector Take(core::ResourceVector& idle, core::ResourceVector& releasing,
                          const core::ResourceVector& want) {
  core::ResourceVector from_releasing;
  from_releasing.cpu_milli = TakeOne(idle.cpu_milli, releasing.cpu_milli, want.cpu_milli);
  from_releasing.memory_bytes =
      TakeOne(idle.memory_bytes, releasing.memory_bytes, want.memory_bytes);
  from_releasing.pods_milli = TakeOne(idle.pods_milli, releasing.pods_milli, want.pods_milli);
  for (const auto& [name, amount] : want.scalars()) {
    Quantity i = idle.Scalar(name);
    Quantity r = releasing.Scalar(name);
    from_releasing.SetScalar(name, TakeOne(i, r, amount));
    idle.SetScalar(name, i);
    releasing.SetScalar(name, r);
  }
  return from_releasing;
}

// Removes the last entry of `pod` (operations are undone last first; a pod evicted and placed
// again on its own node is listed twice until then).
void RemovePod(std::vector<Index>& pods, Index pod) {
  auto it = std::find(pods.rbegin(), pods.rend(), pod);
  if (it != pods.rend()) pods.erase(std::next(it).base());
}

}  // namespace

Statement::Statement(Session& session, std::string action)
    : session_(session), action_(std::move(action)) {}

Statement::~Statement() {
  if (!committed_) Discard();
}

void Statement::Allocate(Index pod, const Placement& placement) {
  ops_.push_back(Op{Kind::kAllocate, pod, placement, {}, {}, {}, {}, ""});
  Apply(ops_.back());
}

void Statement::Pipeline(Index pod, const Placement& placement) {
  ops_.push_back(Op{Kind::kPipeline, pod, placement, {}, {}, {}, {}, ""});
  Apply(ops_.back());
}

void Statement::Evict(Index pod, std::string reason) {
  const PodState& s = session_.state().pod(pod);
  // A pod whose node is not in the snapshot holds nothing the session tracks: there is nothing
  // to give back, and callers only evict pods that hold resources.
  if (s.node == kNone) return;
  Placement where;
  where.node = s.node;
  where.devices = s.devices;
  ops_.push_back(Op{Kind::kEvict, pod, where, {}, {}, {}, {}, std::move(reason)});
  Apply(ops_.back());
}

const Statement::Op* Statement::EvictionOf(Index pod, size_t end) const {
  for (size_t i = end; i-- > 0;) {
    if (ops_[i].pod != pod) continue;
    return ops_[i].kind == Kind::kEvict ? &ops_[i] : nullptr;
  }
  return nullptr;
}

bool Statement::CanUnevict(Index pod) const {
  const Op* evict = EvictionOf(pod, ops_.size());
  const PodState& s = session_.state().pod(pod);
  if (evict == nullptr || s.status != core::PodStatus::kReleasing ||
      s.node != evict->placement.node)
    return false;
  const NodeState& node = session_.state().node(s.node);
  for (int32_t index : evict->before.devices) {
    const DeviceState& d = node.devices[static_cast<size_t>(index)];
    if (d.free_milli() + d.releasing_milli < evict->before.portion_milli) return false;
  }
  const core::ResourceVector request = NonGpu(session_.pod(pod).request);
  core::ResourceVector room = node.idle;
  room += node.releasing;
  return request.FitsIn(room);
}

bool Statement::Unevict(Index pod) {
  if (!CanUnevict(pod)) return false;
  const Op* evict = EvictionOf(pod, ops_.size());
  Placement where;
  where.node = evict->placement.node;
  where.devices = evict->before.devices;
  ops_.push_back(Op{Kind::kUnevict, pod, where, {}, {}, {}, {}, ""});
  Apply(ops_.back());
  return true;
}

bool Statement::UnevictMovingPipelined(Index pod) {
  if (CanUnevict(pod)) return Unevict(pod);
  const Op* evict = EvictionOf(pod, ops_.size());
  const PodState& s = session_.state().pod(pod);
  if (evict == nullptr || s.status != core::PodStatus::kReleasing ||
      s.node != evict->placement.node || evict->before.devices.empty() ||
      evict->before.portion_milli != Quantity(kWholeGpuMilli)) {
    return false;
  }
  const Index node_index = s.node;
  const std::vector<int32_t>& own = evict->before.devices;
  const auto is_own = [&](int32_t d) { return std::find(own.begin(), own.end(), d) != own.end(); };
  const size_t evicted_at = static_cast<size_t>(evict - ops_.data());
  // The pods that took the own devices: whole-GPU pipelines on this node after the eviction.
  size_t first = ops_.size();
  size_t taken = 0;
  for (size_t i = evicted_at + 1; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    if (op.kind != Kind::kPipeline && op.kind != Kind::kAllocate) continue;
    if (op.placement.node != node_index) continue;
    const size_t on_own = static_cast<size_t>(
        std::count_if(op.placement.devices.begin(), op.placement.devices.end(), is_own));
    if (on_own == 0) continue;
    if (op.kind != Kind::kPipeline || !op.placement.whole_gpus) return false;
    first = std::min(first, i);
    taken += on_own;
  }
  if (taken == 0) return false;
  // Devices nobody holds or gives back now were so since `first` (a device's held plus
  // releasing share never shrinks through Apply), so the moved pods can have them all along.
  const NodeState& node = session_.state().node(node_index);
  std::vector<int32_t> spare;
  for (size_t d = 0; d < node.devices.size(); ++d) {
    const DeviceState& dev = node.devices[d];
    if (dev.used_milli.is_zero() && dev.releasing_milli.is_zero() &&
        !is_own(static_cast<int32_t>(d))) {
      spare.push_back(static_cast<int32_t>(d));
    }
  }
  if (spare.size() < taken) return false;
  const core::ResourceVector request = NonGpu(session_.pod(pod).request);
  core::ResourceVector room = node.idle;
  room += node.releasing;
  if (!request.FitsIn(room)) return false;
  size_t next_spare = 0;
  Replay(first, [&](Kind& kind, Placement& placement) {
    if (kind != Kind::kPipeline || placement.node != node_index) return;
    for (int32_t& d : placement.devices) {
      if (is_own(d)) d = spare[next_spare++];
    }
  });
  return Unevict(pod);
}

void Statement::PlaceOnDevices(Op& op, bool pipelined) {
  NodeState& node = session_.state().node(op.placement.node);
  for (size_t k = 0; k < op.placement.devices.size(); ++k) {
    DeviceState& d = node.devices[static_cast<size_t>(op.placement.devices[k])];
    op.devices_before.push_back(d);
    Quantity want = op.placement.portion_milli;
    Quantity from_releasing = Quantity::Zero();
    if (pipelined) {
      // What releasing co-tenants give back first (KAI's ReleasingSharedGPUsMemory), then
      // the device's free part.
      from_releasing = core::Max(Quantity::Zero(), core::Min(want, d.releasing_milli));
      d.releasing_milli -= from_releasing;
    }
    d.used_milli += want;
    ++d.holders;
    d.allocated_group = d.allocated_group || !pipelined;
    if (op.placement.whole_gpus) {
      d.kind = DeviceState::Kind::kWhole;
      d.group.clear();
    } else {
      d.kind = DeviceState::Kind::kShared;
      d.group = op.placement.gpu_groups[k];
    }
    op.device_releasing.push_back(from_releasing);
  }
}

void Statement::Apply(Op& op) {
  ClusterState& state = session_.state();
  op.version_before = state.version();
  state.set_version(state.NewVersion());
  PodState& pod = state.pod(op.pod);
  op.before = pod;
  const core::Pod& p = session_.pod(op.pod);
  const core::Job& job = session_.job(p.job);
  const core::ResourceVector request = NonGpu(p.request);
  switch (op.kind) {
    case Kind::kAllocate:
    case Kind::kPipeline: {
      NodeState& node = state.node(op.placement.node);
      const bool pipelined = op.kind == Kind::kPipeline;
      if (pipelined) {
        // Releasing resources first, as KAI's NodeInfo.addTaskResources charges a Pipelined
        // task to ReleasingVector: what is idle stays for pods that can start now. KAI takes
        // it all from releasing, even past zero (the node is then over-committed); the part
        // releasing pods do not give back comes from idle here.
        core::ResourceVector from_idle = Take(node.releasing, node.idle, request);
        op.from_releasing = request;
        op.from_releasing -= from_idle;
      } else {
        node.idle -= request;
      }
      PlaceOnDevices(op, pipelined);
      node.pods.push_back(op.pod);
      pod.status = pipelined ? core::PodStatus::kPipelined : core::PodStatus::kAllocated;
      pod.node = op.placement.node;
      pod.devices = op.placement.devices;
      pod.portion_milli = op.placement.portion_milli;
      pod.gpu_groups = op.placement.gpu_groups;
      if (job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        // A pipelined pod counts in its queue's allocation from now, as an allocated one does
        // (KAI's Statement.Pipeline fires the same allocate event). Only the allocation follows
        // the cycle's decisions: a queue's request is what it asked for when the session opened
        // (KAI's proportion plugin never updates Request).
        session_.shares().AddAllocated(job.queue, on_node, job.preemptible);
      }
      break;
    }
    case Kind::kEvict: {
      NodeState& node = state.node(pod.node);
      node.releasing += request;
      for (int32_t index : pod.devices) {
        DeviceState& d = node.devices[static_cast<size_t>(index)];
        op.devices_before.push_back(d);
        const Quantity moved = core::Min(pod.portion_milli, d.used_milli);
        d.used_milli -= moved;
        d.releasing_milli += moved;
      }
      if (core::IsAllocatedStatus(pod.status) && job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        session_.shares().RemoveAllocated(job.queue, on_node, job.preemptible);
      }
      pod.status = core::PodStatus::kReleasing;
      break;
    }
    case Kind::kUnevict: {
      // The eviction this undoes: the last operation on the pod before this one.
      const Op* evict = EvictionOf(op.pod, static_cast<size_t>(&op - ops_.data()));
      NodeState& node = state.node(pod.node);
      // Its own resources come back from the releasing pool; what others claimed there since
      // comes from idle (CanUnevict checked the room).
      op.from_releasing = Take(node.releasing, node.idle, request);
      for (int32_t index : pod.devices) {
        DeviceState& d = node.devices[static_cast<size_t>(index)];
        op.devices_before.push_back(d);
        const Quantity back = core::Min(pod.portion_milli, d.releasing_milli);
        d.releasing_milli -= back;
        d.used_milli += pod.portion_milli;
      }
      pod = evict->before;
      if (core::IsAllocatedStatus(pod.status) && job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        session_.shares().AddAllocated(job.queue, on_node, job.preemptible);
      }
      break;
    }
  }
  state.NodeChanged(pod.node);
}

void Statement::Undo(const Op& op) {
  ClusterState& state = session_.state();
  PodState& pod = state.pod(op.pod);
  const core::Pod& p = session_.pod(op.pod);
  const core::Job& job = session_.job(p.job);
  const core::ResourceVector request = NonGpu(p.request);
  const Index node_index =
      op.kind == Kind::kEvict || op.kind == Kind::kUnevict ? pod.node : op.placement.node;
  NodeState& node = state.node(node_index);
  switch (op.kind) {
    case Kind::kAllocate:
    case Kind::kPipeline:
      if (job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        session_.shares().RemoveAllocated(job.queue, on_node, job.preemptible);
      }
      node.idle += request;
      node.idle -= op.from_releasing;
      node.releasing += op.from_releasing;
      RemovePod(node.pods, op.pod);
      break;
    case Kind::kEvict:
      node.releasing -= request;
      if (core::IsAllocatedStatus(op.before.status) && job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        session_.shares().AddAllocated(job.queue, on_node, job.preemptible);
      }
      break;
    case Kind::kUnevict:
      // `pod` is as the unevict left it (the pre-eviction state); op.before is Releasing.
      if (core::IsAllocatedStatus(pod.status) && job.queue != kNone) {
        const core::ShareVector on_node = session_.QuotaOf(op.pod, pod.node);
        session_.shares().RemoveAllocated(job.queue, on_node, job.preemptible);
      }
      node.releasing += request;
      node.releasing -= op.from_releasing;
      node.idle += op.from_releasing;
      break;
  }
  const std::vector<int32_t>& devices = op.kind == Kind::kEvict || op.kind == Kind::kUnevict
                                            ? op.before.devices
                                            : op.placement.devices;
  for (size_t k = 0; k < devices.size() && k < op.devices_before.size(); ++k) {
    node.devices[static_cast<size_t>(devices[k])] = op.devices_before[k];
  }
  pod = op.before;
  state.NodeChanged(node_index);
  state.set_version(op.version_before);
}

void Statement::Rollback(size_t checkpoint) {
  while (ops_.size() > checkpoint) {
    Undo(ops_.back());
    ops_.pop_back();
  }
}

void Statement::Replay(size_t checkpoint, const std::function<void(Kind&, Placement&)>& change) {
  std::vector<Op> redo;
  while (ops_.size() > checkpoint) {
    Undo(ops_.back());
    redo.push_back(std::move(ops_.back()));
    ops_.pop_back();
  }
  for (auto it = redo.rbegin(); it != redo.rend(); ++it) {
    Kind kind = it->kind;
    Placement placement = it->placement;
    change(kind, placement);
    ops_.push_back(Op{kind, it->pod, std::move(placement), {}, {}, {}, {}, it->reason});
    Apply(ops_.back());
  }
}

void Statement::ConvertAllocatedToPipelined(size_t checkpoint) {
  // A pipelined pod waits for releasing resources (KAI charges it to ReleasingVector, handing
  // its idle share back): an allocation that took a device nobody held or gave back moves to a
  // device only releasing pods hold, when there is one, leaving the free device to a pod that
  // can start now. Devices the replayed operations name are not moved to, so no two of them
  // meet on one device; a pod that joined a moved GPU group follows it.
  std::map<Index, std::set<int32_t>> taken;
  for (size_t i = checkpoint; i < ops_.size(); ++i) {
    const Op& op = ops_[i];
    if (op.kind != Kind::kAllocate && op.kind != Kind::kPipeline) continue;
    taken[op.placement.node].insert(op.placement.devices.begin(), op.placement.devices.end());
  }
  std::map<std::pair<Index, int32_t>, int32_t> moved;
  std::vector<size_t> converted;
  size_t at = checkpoint;
  Replay(checkpoint, [&](Kind& kind, Placement& placement) {
    const size_t index = at++;
    if (kind != Kind::kAllocate && kind != Kind::kPipeline) return;
    for (int32_t& d : placement.devices) {
      const auto it = moved.find({placement.node, d});
      if (it != moved.end()) d = it->second;
    }
    if (kind != Kind::kAllocate) return;
    kind = Kind::kPipeline;
    converted.push_back(index);
    const NodeState& node = session_.state().node(placement.node);
    std::set<int32_t>& named = taken[placement.node];
    for (int32_t& d : placement.devices) {
      const DeviceState& from = node.devices[static_cast<size_t>(d)];
      if (!from.used_milli.is_zero() || !from.releasing_milli.is_zero()) continue;
      for (size_t t = 0; t < node.devices.size(); ++t) {
        const DeviceState& to = node.devices[t];
        const int32_t target = static_cast<int32_t>(t);
        if (!to.used_milli.is_zero() || to.releasing_milli.is_zero() || named.count(target)) {
          continue;
        }
        named.insert(target);
        moved[{placement.node, d}] = target;
        d = target;
        break;
      }
    }
  });
  // A group an allocation joined or opened stays allocated once its pods wait (KAI keeps the
  // group's key when it turns them into pipelines).
  for (size_t index : converted) {
    const Op& op = ops_[index];
    if (op.placement.whole_gpus) continue;
    NodeState& node = session_.state().node(op.placement.node);
    for (int32_t d : op.placement.devices)
      node.devices[static_cast<size_t>(d)].allocated_group = true;
  }
}

bool Statement::HasPipelinedSince(size_t checkpoint) const {
  for (size_t i = checkpoint; i < ops_.size(); ++i) {
    if (ops_[i].kind == Kind::kPipeline) return true;
  }
  return false;
}

void Statement::Commit() {
  committed_ = true;
  // A pod evicted and then unevicted keeps running: neither operation is a decision.
  std::set<Index> kept;
  for (const Op& op : ops_) {
    if (op.kind == Kind::kUnevict) kept.insert(op.pod);
  }
  for (const Op& op : ops_) {
    if ((op.kind == Kind::kEvict || op.kind == Kind::kUnevict) && kept.count(op.pod)) continue;
    Decision d;
    d.action = action_;
    d.pod = session_.pod(op.pod).key;
    d.node = session_.node(op.placement.node).name;
    switch (op.kind) {
      case Kind::kAllocate:
        d.kind = DecisionKind::kBind;
        d.gpu_groups = op.placement.gpu_groups;
        break;
      case Kind::kPipeline:
        d.kind = DecisionKind::kPipeline;
        d.gpu_groups = op.placement.gpu_groups;
        break;
      case Kind::kEvict:
        d.kind = DecisionKind::kEvict;
        d.reason = op.reason;
        break;
      case Kind::kUnevict:
        continue;  // skipped above
    }
    session_.Record(std::move(d));
  }
  ops_.clear();
}

}  // namespace quotient::framework
