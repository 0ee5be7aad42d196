#include "generate/demo_day.h"

#include <fmt/format.h>

#include <string>

#include "generate/deterministic_random.h"

namespace quotient::generate {
namespace {

using nlohmann::json;

constexpr int kNodes = 32;
constexpr int kGpusPerNode = 8;
constexpr int64_t kHour = 3600;
constexpr int64_t kMinute = 60;

json Meta(const std::string& name, const std::string& ns = "") {
  json meta = {{"name", name}, {"creationTimestamp", "2026-01-01T00:00:00Z"}};
  if (!ns.empty()) meta["namespace"] = ns;
  return meta;
}

// KAI's rule: below 100 preemptible, from 100 not.
json PriorityClass(const std::string& name, int value) {
  return {{"apiVersion", "scheduling.k8s.io/v1"},
          {"kind", "PriorityClass"},
          {"metadata", Meta(name)},
          {"value", value}};
}

json Queue(const std::string& name, const std::string& parent, int gpus, int weight) {
  const json unlimited = {{"quota", -1}, {"limit", -1}, {"overQuotaWeight", 1}};
  json spec = {{"resources",
                {{"gpu", {{"quota", gpus}, {"limit", -1}, {"overQuotaWeight", weight}}},
                 {"cpu", unlimited},
                 {"memory", unlimited}}}};
  if (!parent.empty()) spec["parentQueue"] = parent;
  return {{"apiVersion", "scheduling.run.ai/v2"},
          {"kind", "Queue"},
          {"metadata", Meta(name)},
          {"spec", spec}};
}

json Node(int index) {
  json meta = Meta(fmt::format("gpu-node-{:02d}", index));
  meta["labels"] = {{"nvidia.com/gpu.memory", "81920"}, {"nvidia.com/gpu.product", "H100"}};
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", meta},
          {"status",
           {{"allocatable",
             {{"cpu", "128"},
              {"memory", "1Ti"},
              {"nvidia.com/gpu", std::to_string(kGpusPerNode)},
              {"pods", "110"}}},
            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

std::string Duration(int64_t seconds) { return std::to_string(seconds) + "s"; }

// Emits the work of one project: its PodGroups and pods in the project's namespace.
class Project {
 public:
  Project(std::string queue, const ObjectVisitor& visit)
      : queue_(std::move(queue)), visit_(visit) {}

  // A gang of `pods` pods of `gpus` GPUs each, all needed at once.
  void Gang(const std::string& name, int pods, int gpus, int64_t arrival, int64_t duration) {
    Group(name, pods, "train", arrival, duration);
    for (int p = 0; p < pods; ++p) {
      Pod(fmt::format("{}-{}", name, p), name, "train", Whole(gpus), {});
    }
  }

  // A job of one pod of `gpus` GPUs (or a fraction when `fraction` is given, like "0.5").
  void Single(const std::string& name, const std::string& priority_class, int gpus,
              const std::string& fraction, int64_t arrival, int64_t duration) {
    Group(name, 1, priority_class, arrival, duration);
    json annotations;
    if (!fraction.empty()) annotations["gpu-fraction"] = fraction;
    Pod(name, name, priority_class, fraction.empty() ? Whole(gpus) : json::object(), annotations);
  }

 private:
  static json Whole(int gpus) { return {{"nvidia.com/gpu", std::to_string(gpus)}}; }

  void Group(const std::string& name, int pods, const std::string& priority_class, int64_t arrival,
             int64_t duration) {
    json meta = Meta(name, queue_);
    meta["annotations"] = {{"simulation.quotient.dev/arrival", Duration(arrival)},
                           {"simulation.quotient.dev/duration", Duration(duration)}};
    visit_({{"apiVersion", "scheduling.run.ai/v2alpha2"},
            {"kind", "PodGroup"},
            {"metadata", meta},
            {"spec",
             {{"queue", queue_}, {"minMember", pods}, {"priorityClassName", priority_class}}}});
  }

  void Pod(const std::string& name, const std::string& group, const std::string& priority_class,
           const json& limits, json annotations) {
    json meta = Meta(name, queue_);
    annotations["pod-group-name"] = group;
    meta["annotations"] = annotations;
    meta["labels"] = {{"kai.scheduler/queue", queue_}};
    json resources = {{"requests", {{"cpu", "8"}, {"memory", "64Gi"}}}};
    if (!limits.empty()) resources["limits"] = limits;
    visit_({{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", meta},
            {"spec",
             {{"schedulerName", "quotient"},
              {"priorityClassName", priority_class},
              {"containers", {{{"name", "main"}, {"resources", resources}}}}}}});
  }

  std::string queue_;
  const ObjectVisitor& visit_;
};

}  // namespace

void ForEachDemoDayObject(uint64_t seed, const ObjectVisitor& visit) {
  DeterministicRandom random(seed);
  visit(PriorityClass("train", 50));
  visit(PriorityClass("build", 100));
  visit(Queue("research", "", 160, 2));
  visit(Queue("product", "", 96, 1));
  visit(Queue("llm", "research", 96, 2));
  visit(Queue("vision", "research", 40, 1));
  visit(Queue("speech", "research", 24, 1));
  visit(Queue("recsys", "product", 64, 1));
  visit(Queue("evals", "product", 32, 1));
  for (int i = 0; i < kNodes; ++i) visit(Node(i));

  Project llm("llm", visit);
  Project vision("vision", visit);
  Project speech("speech", visit);
  Project recsys("recsys", visit);
  Project evals("evals", visit);

  // The burst that borrows, and the owner who takes its quota back.
  for (int i = 0; i < 200; ++i) {
    recsys.Single(fmt::format("sweep-{:03d}", i), "train", 1, "", 1 * kHour + i,
                  10 * kHour + random.Below(60) * kMinute);
  }
  llm.Gang("pretrain", 12, 8, 9 * kHour, 12 * kHour);
  llm.Gang("finetune-a", 2, 8, 13 * kHour, 3 * kHour);
  llm.Gang("finetune-b", 2, 8, 15 * kHour, 3 * kHour);

  // Training through the day.
  vision.Gang("detector-a", 2, 8, 6 * kHour, 4 * kHour);
  vision.Gang("detector-b", 2, 8, 11 * kHour, 4 * kHour);
  vision.Gang("segmenter", 2, 8, 16 * kHour, 4 * kHour);
  speech.Gang("asr", 2, 8, 8 * kHour, 6 * kHour);
  speech.Gang("tts", 1, 8, 14 * kHour, 5 * kHour);
  recsys.Gang("ranker-a", 4, 4, 10 * kHour, 3 * kHour);
  recsys.Gang("ranker-b", 4, 4, 18 * kHour, 3 * kHour);

  // Evaluation fan-outs.
  for (int round = 0; round < 16; ++round) {
    const int64_t at = 30 * kMinute + round * 90 * kMinute;
    for (int i = 0; i < 32; ++i) {
      evals.Single(fmt::format("eval-{:02d}-{:02d}", round, i), "train", 1, "", at + i,
                   10 * kMinute + random.Below(31) * kMinute);
    }
  }
  for (int round = 0; round < 8; ++round) {
    const int64_t at = 2 * kHour + round * 3 * kHour;
    for (int i = 0; i < 12; ++i) {
      vision.Single(fmt::format("eval-{:02d}-{:02d}", round, i), "train", 1, "", at + i,
                    15 * kMinute + random.Below(16) * kMinute);
    }
  }

  // Notebooks in working hours, on fractions of a GPU.
  Project* projects[] = {&llm, &vision, &speech, &recsys, &evals};
  for (int i = 0; i < 80; ++i) {
    Project& project = *projects[random.Below(5)];
    const int64_t at = 8 * kHour + random.Below(12 * 60) * kMinute;
    const char* fraction = random.Below(3) == 0 ? "0.5" : "0.25";
    project.Single(fmt::format("notebook-{:02d}", i), "build", 0, fraction, at,
                   1 * kHour + random.Below(4 * 60 - 60 + 1) * kMinute);
  }
}

}  // namespace quotient::generate
