// What the simulator's tests build their workloads from: a pod with its arrival and duration,
// two teams of 8 deserved GPUs each, and a run that fails the test on an error.
#pragma once

#include <stdexcept>
#include <string>

#include "builders/objects.h"
#include "simulate/simulation.h"
#include "simulate/workload_times.h"

namespace quotient::simulate::testing {

// A pod of `queue` asking `gpus` GPUs, arriving at `arrival` and running for `duration` seconds.
inline core::PodObject Work(const std::string& name, const std::string& queue, int gpus,
                            int arrival, int duration) {
  return quotient::testing::MakePod("ns", name)
      .Queue(queue)
      .Gpus(gpus)
      .Annotation(std::string(kArrivalAnnotation), std::to_string(arrival) + "s")
      .Annotation(std::string(kDurationAnnotation), std::to_string(duration) + "s");
}

// `nodes` nodes of 8 GPUs; queues team-a and team-b deserving 8 GPUs each, weight 1.
inline core::ClusterObjects TwoTeams(int nodes) {
  core::ClusterObjects o;
  for (int i = 0; i < nodes; ++i) {
    o.nodes.push_back(
        quotient::testing::MakeNode("node-" + std::to_string(i)).Gpus(8).Cpu("64").Memory("512Gi"));
  }
  o.queues.push_back(quotient::testing::MakeQueue("team-a").Gpu(8, -1, 1));
  o.queues.push_back(quotient::testing::MakeQueue("team-b").Gpu(8, -1, 1));
  return o;
}

inline SimulationResult Simulated(core::ClusterObjects objects, SimulationOptions options = {}) {
  Result<SimulationResult> r = Simulate(std::move(objects), options);
  if (!r.ok()) throw std::runtime_error(r.message());
  return std::move(r).value();
}

}  // namespace quotient::simulate::testing
