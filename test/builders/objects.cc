#include "builders/objects.h"

#include <cmath>
#include <stdexcept>

namespace quotient::testing {
namespace {

core::Bound Amount(double v, int64_t scale) {
  if (v < 0) return core::Bound::Unlimited();
  return core::Bound::Of(core::Quantity(std::llround(v * static_cast<double>(scale))));
}

}  // namespace

core::Quantity Q(std::string_view text, core::Scale scale) {
  Result<core::Quantity> q = core::ParseQuantity(text, scale, core::Rounding::kUp);
  if (!q.ok()) throw std::invalid_argument("bad quantity in test: " + std::string(text));
  return *q;
}

MakeNode::MakeNode(std::string name) {
  node_.meta.name = std::move(name);
  node_.meta.source = "test";
  node_.allocatable.pods_milli = core::Quantity(110'000);
  node_.allocatable.cpu_milli = Q("64");
  node_.allocatable.memory_bytes = Q("512Gi", core::Scale::kUnit);
}
MakeNode& MakeNode::Gpus(int64_t n) {
  node_.allocatable.gpu_milli = core::Quantity(n * 1000);
  return *this;
}
MakeNode& MakeNode::Cpu(std::string_view cores) {
  node_.allocatable.cpu_milli = Q(cores);
  return *this;
}
MakeNode& MakeNode::Memory(std::string_view bytes) {
  node_.allocatable.memory_bytes = Q(bytes, core::Scale::kUnit);
  return *this;
}
MakeNode& MakeNode::Label(std::string key, std::string value) {
  node_.meta.labels[std::move(key)] = std::move(value);
  return *this;
}
MakeNode& MakeNode::Scalar(std::string name, int64_t count) {
  node_.allocatable.SetScalar(name, core::Quantity(count * 1000));
  return *this;
}
MakeNode& MakeNode::NotReady() {
  node_.ready = false;
  return *this;
}
MakeNode& MakeNode::Cordoned() {
  node_.unschedulable = true;
  return *this;
}

MakePod::MakePod(std::string ns, std::string name) {
  pod_.meta.namespace_name = std::move(ns);
  pod_.meta.name = std::move(name);
  pod_.meta.uid = "uid-" + pod_.meta.name;
  pod_.meta.source = "test";
  pod_.scheduler_name = "quotient";
  pod_.containers.push_back({"main", {}, false});
}
core::ContainerResources& MakePod::Main() { return pod_.containers.front(); }
MakePod& MakePod::Scheduler(std::string name) {
  pod_.scheduler_name = std::move(name);
  return *this;
}
MakePod& MakePod::Queue(std::string queue) {
  return Label("kai.scheduler/queue", std::move(queue));
}
MakePod& MakePod::Group(std::string pod_group) {
  return Annotation("pod-group-name", std::move(pod_group));
}
MakePod& MakePod::Gpus(int64_t n) {
  Main().requests.gpu_milli = core::Quantity(n * 1000);
  Main().gpu_limit = n > 0;
  return *this;
}
MakePod& MakePod::Cpu(std::string_view cores) {
  Main().requests.cpu_milli = Q(cores);
  return *this;
}
MakePod& MakePod::Memory(std::string_view bytes) {
  Main().requests.memory_bytes = Q(bytes, core::Scale::kUnit);
  return *this;
}
MakePod& MakePod::Annotation(std::string key, std::string value) {
  pod_.meta.annotations[std::move(key)] = std::move(value);
  return *this;
}
MakePod& MakePod::Label(std::string key, std::string value) {
  pod_.meta.labels[std::move(key)] = std::move(value);
  return *this;
}
MakePod& MakePod::PriorityClass(std::string name) {
  pod_.priority_class_name = std::move(name);
  return *this;
}
MakePod& MakePod::RunningOn(std::string node) {
  pod_.node_name = std::move(node);
  pod_.phase = core::PodPhase::kRunning;
  return *this;
}
MakePod& MakePod::BoundTo(std::string node) {
  pod_.node_name = std::move(node);
  pod_.phase = core::PodPhase::kPending;
  return *this;
}
MakePod& MakePod::Phase(core::PodPhase phase) {
  pod_.phase = phase;
  return *this;
}
MakePod& MakePod::Deleting() {
  pod_.meta.deleting = true;
  return *this;
}
MakePod& MakePod::DeletedAt(int64_t unix_seconds) {
  pod_.meta.deleting = true;
  pod_.meta.deletion_time = core::Time(std::chrono::seconds(unix_seconds));
  return *this;
}
MakePod& MakePod::Created(int64_t unix_seconds) {
  pod_.meta.creation_time = core::Time(std::chrono::seconds(unix_seconds));
  return *this;
}

MakeQueue::MakeQueue(std::string name) {
  queue_.meta.name = std::move(name);
  queue_.meta.uid = "uid-" + queue_.meta.name;
  queue_.meta.source = "test";
  // Like KAI's test builders: CPU and memory unlimited unless a test says otherwise.
  Cpu(-1, -1, 1);
  Memory(-1, -1, 1);
}
MakeQueue& MakeQueue::Parent(std::string parent) {
  queue_.parent = std::move(parent);
  return *this;
}
MakeQueue& MakeQueue::Priority(int32_t priority) {
  queue_.priority = priority;
  return *this;
}
MakeQueue& MakeQueue::Gpu(double quota, double limit, double weight) {
  auto& r = queue_.resources[core::ShareResource::kGpu];
  r.quota = Amount(quota, 1000);
  r.limit = Amount(limit, 1000);
  r.over_quota_weight_milli = core::Quantity(std::llround(weight * 1000));
  return *this;
}
MakeQueue& MakeQueue::Cpu(double quota, double limit, double weight) {
  auto& r = queue_.resources[core::ShareResource::kCpu];
  r.quota = Amount(quota, 1);
  r.limit = Amount(limit, 1);
  r.over_quota_weight_milli = core::Quantity(std::llround(weight * 1000));
  return *this;
}
MakeQueue& MakeQueue::Memory(double quota, double limit, double weight) {
  auto& r = queue_.resources[core::ShareResource::kMemory];
  r.quota = Amount(quota, 1'000'000);
  r.limit = Amount(limit, 1'000'000);
  r.over_quota_weight_milli = core::Quantity(std::llround(weight * 1000));
  return *this;
}
MakeQueue& MakeQueue::Created(int64_t unix_seconds) {
  queue_.meta.creation_time = core::Time(std::chrono::seconds(unix_seconds));
  return *this;
}
MakeQueue& MakeQueue::NoResources() {
  // As the codec reads a Queue without spec.resources: zeros everywhere, and a warning.
  queue_.resources = {};
  queue_.warnings.push_back("spec.resources: missing");
  return *this;
}

MakeGroup::MakeGroup(std::string ns, std::string name) {
  group_.meta.namespace_name = std::move(ns);
  group_.meta.name = std::move(name);
  group_.meta.uid = "uid-" + group_.meta.name;
  group_.meta.source = "test";
}
MakeGroup& MakeGroup::Created(int64_t unix_seconds) {
  group_.meta.creation_time = core::Time(std::chrono::seconds(unix_seconds));
  return *this;
}
MakeGroup& MakeGroup::Queue(std::string queue) {
  group_.queue = std::move(queue);
  return *this;
}
MakeGroup& MakeGroup::MinMember(int32_t n) {
  group_.min_member = n;
  return *this;
}
MakeGroup& MakeGroup::PriorityClass(std::string name) {
  group_.priority_class_name = std::move(name);
  return *this;
}
MakeGroup& MakeGroup::Preemptibility(core::Preemptibility p) {
  group_.preemptibility = p;
  return *this;
}
MakeGroup& MakeGroup::SubGroup(std::string name, int32_t min_member, std::string parent) {
  core::SubGroupSpec s;
  s.name = std::move(name);
  s.min_member = min_member;
  if (!parent.empty()) s.parent = std::move(parent);
  group_.sub_groups.push_back(std::move(s));
  return *this;
}

core::PriorityClassObject PriorityClass(std::string name, int32_t value, bool global_default) {
  core::PriorityClassObject c;
  c.meta.name = std::move(name);
  c.value = value;
  c.global_default = global_default;
  return c;
}

}  // namespace quotient::testing
