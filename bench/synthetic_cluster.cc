#include "synthetic_cluster.h"

#include <random>
#include <string>

namespace quotient::bench {
namespace {

core::Quantity Q(int64_t v) { return core::Quantity(v); }

core::NodeObject MakeNode(int i, int gpus) {
  core::NodeObject n;
  n.meta.name = "node-" + std::to_string(10000 + i);
  n.meta.labels["nvidia.com/gpu.memory"] = "81920";
  n.allocatable.cpu_milli = Q(128'000);
  n.allocatable.memory_bytes = Q(int64_t{1} << 40);
  n.allocatable.gpu_milli = Q(int64_t{gpus} * 1000);
  n.allocatable.pods_milli = Q(110'000);
  return n;
}

core::QueueObject MakeQueue(const std::string& name, const std::string& parent, int64_t gpu_quota) {
  core::QueueObject q;
  q.meta.name = name;
  q.parent = parent;
  q.has_resources = true;
  q.resources[core::ShareResource::kGpu] = {core::Bound::Of(Q(gpu_quota * 1000)),
                                            core::Bound::Unlimited(), Q(1000)};
  q.resources[core::ShareResource::kCpu] = {core::Bound::Unlimited(), core::Bound::Unlimited(),
                                            Q(1000)};
  q.resources[core::ShareResource::kMemory] = {core::Bound::Unlimited(), core::Bound::Unlimited(),
                                               Q(1000)};
  return q;
}

core::PodObject MakePod(const std::string& ns, const std::string& name, const std::string& queue,
                        int64_t gpus, int64_t cpu_milli) {
  core::PodObject p;
  p.meta.namespace_name = ns;
  p.meta.name = name;
  p.meta.uid = ns + "-" + name;
  p.meta.labels["kai.scheduler/queue"] = queue;
  p.scheduler_name = "quotient";
  core::ContainerResources c;
  c.name = "main";
  c.requests.cpu_milli = Q(cpu_milli);
  c.requests.memory_bytes = Q(cpu_milli * 4'000'000);
  c.requests.gpu_milli = Q(gpus * 1000);
  p.containers.push_back(c);
  return p;
}

}  // namespace

core::ClusterObjects MakeSyntheticCluster(const SyntheticClusterSpec& spec) {
  std::mt19937_64 rng(spec.seed);
  core::ClusterObjects o;
  for (int i = 0; i < spec.nodes; ++i) o.nodes.push_back(MakeNode(i, spec.gpus_per_node));
  std::vector<std::string> projects;
  const int64_t total_gpus = int64_t{spec.nodes} * spec.gpus_per_node;
  const int64_t project_quota =
      total_gpus / (spec.departments * spec.projects_per_department) * 8 / 10;
  for (int d = 0; d < spec.departments; ++d) {
    const std::string dept = "dept-" + std::to_string(d);
    o.queues.push_back(MakeQueue(dept, "", project_quota * spec.projects_per_department));
    for (int p = 0; p < spec.projects_per_department; ++p) {
      projects.push_back(dept + "-proj-" + std::to_string(p));
      o.queues.push_back(MakeQueue(projects.back(), dept, project_quota));
    }
  }
  // Running pods, packed node by node: 1-GPU pods, pairs of half-GPU fractions on one shared
  // GPU, 2-GPU pods and CPU-only pods, until the node's GPUs are used.
  int node = 0;
  int gpus_left = spec.gpus_per_node;
  for (int i = 0; i < spec.running_pods && node < spec.nodes; ++i) {
    const std::string& queue = projects[rng() % projects.size()];
    const int kind = static_cast<int>(rng() % 10);
    int64_t gpus = kind < 5 ? 1 : (kind < 7 ? 0 : (kind < 8 ? 2 : 0));
    core::PodObject pod = MakePod("run", "r-" + std::to_string(i), queue, gpus, 4000);
    if (kind == 5 || kind == 6) {  // a fraction sharing a GPU group with its neighbour
      pod.meta.annotations["gpu-fraction"] = "0.5";
      pod.meta.labels["runai-gpu-group"] =
          "n" + std::to_string(node) + "-g" + std::to_string(spec.gpus_per_node - gpus_left);
      if (kind == 6) --gpus_left;
    }
    if (gpus > gpus_left) {
      ++node;
      gpus_left = spec.gpus_per_node;
      if (node >= spec.nodes) break;
    }
    gpus_left -= static_cast<int>(gpus);
    pod.node_name = o.nodes[static_cast<size_t>(node)].meta.name;
    pod.phase = core::PodPhase::kRunning;
    o.pods.push_back(std::move(pod));
    if (gpus_left <= 0) {
      ++node;
      gpus_left = spec.gpus_per_node;
    }
  }
  // Pending pod groups: single GPUs, fractions, gpu-memory, CPU-only, and gangs of 2-16 pods.
  for (int g = 0; g < spec.pending_groups; ++g) {
    const std::string& queue = projects[rng() % projects.size()];
    const std::string ns = "team-" + std::to_string(g % 50);
    const std::string name = "job-" + std::to_string(g);
    const int shape = static_cast<int>(rng() % 10);
    int pods = 1;
    int64_t gpus = 1;
    if (shape >= 6) {
      pods = 2 << (rng() % 4);  // 2, 4, 8, 16
      gpus = 1 + static_cast<int64_t>(rng() % 8);
    }
    if (shape == 4) gpus = 0;
    core::PodGroupObject pg;
    pg.meta.namespace_name = ns;
    pg.meta.name = name;
    pg.meta.uid = ns + "-" + name;
    pg.queue = queue;
    pg.min_member = pods;
    pg.priority_class_name = (g % 7 == 0) ? "inference" : "train";
    o.pod_groups.push_back(pg);
    for (int k = 0; k < pods; ++k) {
      core::PodObject pod = MakePod(ns, name + "-" + std::to_string(k), queue,
                                    shape == 2 || shape == 3 ? 0 : gpus, 8000);
      pod.meta.annotations["pod-group-name"] = name;
      if (shape == 2) pod.meta.annotations["gpu-fraction"] = "0.25";
      if (shape == 3) pod.meta.annotations["gpu-memory"] = "20000";
      o.pods.push_back(std::move(pod));
    }
  }
  core::PriorityClassObject train;
  train.meta.name = "train";
  train.value = 50;
  core::PriorityClassObject inference;
  inference.meta.name = "inference";
  inference.value = 125;
  o.priority_classes = {train, inference};
  return o;
}

core::ClusterObjects MakeReclaimLargeJobs(int nodes) {
  core::ClusterObjects o;
  for (int i = 0; i < nodes; ++i) o.nodes.push_back(MakeNode(i, 8));
  core::QueueObject q0 = MakeQueue("queue-0", "", 0);
  q0.resources[core::ShareResource::kGpu].over_quota_weight_milli = Q(0);
  core::QueueObject q1 = MakeQueue("queue-1", "", int64_t{nodes} * 8);
  q1.resources[core::ShareResource::kGpu].over_quota_weight_milli = Q(0);
  o.queues = {q0, q1};
  for (int i = 0; i < nodes * 8; ++i) {
    core::PodObject pod = MakePod("run", "running-job-" + std::to_string(i), "queue-0", 1, 100);
    pod.node_name = o.nodes[static_cast<size_t>(i % nodes)].meta.name;
    pod.phase = core::PodPhase::kRunning;
    o.pods.push_back(std::move(pod));
  }
  core::PodGroupObject pg;
  pg.meta.namespace_name = "big";
  pg.meta.name = "very-large-job";
  pg.queue = "queue-1";
  pg.min_member = nodes / 10;
  o.pod_groups.push_back(pg);
  for (int i = 0; i < nodes / 10; ++i) {
    core::PodObject pod = MakePod("big", "very-large-job-" + std::to_string(i), "queue-1", 8, 100);
    pod.meta.annotations["pod-group-name"] = "very-large-job";
    o.pods.push_back(std::move(pod));
  }
  return o;
}

}  // namespace quotient::bench
