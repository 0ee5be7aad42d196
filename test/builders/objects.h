// Builders for core objects in tests: short, readable scenario setup without YAML.
//   MakeNode("n1").Gpus(8).Cpu("64").Memory("512Gi")
//   MakePod("team-a", "p0").Queue("team-a").Gpus(1).RunningOn("n1")
//   MakeQueue("team-a").Parent("dept").Gpu(2, 4, 1)  // quota, limit, weight (-1 = unlimited)
#pragma once

#include <string>

#include "core/objects.h"

namespace quotient::testing {

core::Quantity Q(std::string_view text, core::Scale scale = core::Scale::kMilli);

class MakeNode {
 public:
  explicit MakeNode(std::string name);
  MakeNode& Gpus(int64_t n);
  MakeNode& Cpu(std::string_view cores);
  MakeNode& Memory(std::string_view bytes);
  MakeNode& Label(std::string key, std::string value);
  MakeNode& Scalar(std::string name, int64_t count);
  MakeNode& NotReady();
  MakeNode& Cordoned();
  operator core::NodeObject() const { return node_; }  // NOLINT: builder

 private:
  core::NodeObject node_;
};

class MakePod {
 public:
  MakePod(std::string ns, std::string name);
  MakePod& Scheduler(std::string name);
  MakePod& Queue(std::string queue);
  MakePod& Group(std::string pod_group);
  MakePod& Gpus(int64_t n);
  MakePod& Cpu(std::string_view cores);
  MakePod& Memory(std::string_view bytes);
  MakePod& Annotation(std::string key, std::string value);
  MakePod& Label(std::string key, std::string value);
  MakePod& PriorityClass(std::string name);
  MakePod& RunningOn(std::string node);
  MakePod& BoundTo(std::string node);
  MakePod& Phase(core::PodPhase phase);
  MakePod& Deleting();
  // Deleting, with metadata.deletionTimestamp at `unix_seconds`.
  MakePod& DeletedAt(int64_t unix_seconds);
  MakePod& Created(int64_t unix_seconds);
  operator core::PodObject() const { return pod_; }  // NOLINT: builder

 private:
  core::ContainerResources& Main();
  core::PodObject pod_;
};

class MakeQueue {
 public:
  explicit MakeQueue(std::string name);
  MakeQueue& Parent(std::string parent);
  MakeQueue& Priority(int32_t priority);
  // quota, limit in GPUs (-1 = unlimited); weight as a number.
  MakeQueue& Gpu(double quota, double limit, double weight);
  MakeQueue& Cpu(double quota_millicores, double limit_millicores, double weight);
  MakeQueue& Memory(double quota_mb, double limit_mb, double weight);
  MakeQueue& Created(int64_t unix_seconds);
  MakeQueue& NoResources();
  operator core::QueueObject() const { return queue_; }  // NOLINT: builder

 private:
  core::QueueObject queue_;
};

class MakeGroup {
 public:
  MakeGroup(std::string ns, std::string name);
  MakeGroup& Queue(std::string queue);
  MakeGroup& MinMember(int32_t n);
  MakeGroup& PriorityClass(std::string name);
  MakeGroup& Preemptibility(core::Preemptibility p);
  MakeGroup& SubGroup(std::string name, int32_t min_member, std::string parent = "");
  MakeGroup& Created(int64_t unix_seconds);
  operator core::PodGroupObject() const { return group_; }  // NOLINT: builder

 private:
  core::PodGroupObject group_;
};

core::PriorityClassObject PriorityClass(std::string name, int32_t value,
                                        bool global_default = false);

}  // namespace quotient::testing
