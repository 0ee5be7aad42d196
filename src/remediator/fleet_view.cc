#include "remediator/fleet_view.h"

#include <algorithm>
#include <map>

#include "remediation/record_codec.h"

namespace quotient::remediator {
namespace {

std::string LabelOf(const ObservedNode& node, const std::string& key) {
  auto it = node.labels.find(key);
  return it == node.labels.end() ? "" : it->second;
}

bool SucceedsOnReboot(const std::string& step, const remediation::Config& config) {
  auto it = config.steps.find(step);
  return it != config.steps.end() && it->second.succeeds_on_reboot;
}

}  // namespace

remediation::StepObservation ObserveStep(const ObservedStep& step, const ObservedNode& node,
                                         const remediation::Config& config) {
  remediation::StepObservation obs;
  obs.name = step.ref.step;
  obs.attempt = step.ref.attempt;
  obs.message = step.message;
  if (SucceedsOnReboot(step.ref.step, config) && step.ref.step != remediation::kValidationStep) {
    const bool rebooted = !step.boot_id_before.empty() && !node.boot_id.empty() &&
                          node.boot_id != step.boot_id_before;
    if (rebooted && node.ready) {
      obs.status = remediation::StepStatus::kSucceeded;
      obs.message.clear();
    } else if (!rebooted && step.phase == StepPhase::kFailed) {
      obs.status = remediation::StepStatus::kFailed;
    } else {
      obs.status = remediation::StepStatus::kPending;  // going down, or coming back
    }
    return obs;
  }
  switch (step.phase) {
    case StepPhase::kRunning:
      obs.status = remediation::StepStatus::kPending;
      break;
    case StepPhase::kSucceeded:
      obs.status = remediation::StepStatus::kSucceeded;
      break;
    case StepPhase::kFailed:
      obs.status = remediation::StepStatus::kFailed;
      break;
  }
  return obs;
}

BuiltFleet BuildFleetView(const FleetInputs& inputs, const remediation::Config& config) {
  BuiltFleet out;
  std::map<std::string, std::vector<const ObservedPod*>> pods_by_node;
  for (const ObservedPod* pod : inputs.pods) {
    if (pod->step || pod->node.empty()) continue;  // our own step pods are not drained
    pods_by_node[pod->node].push_back(pod);
  }
  std::map<std::string, std::vector<const ObservedStep*>> steps_by_node;
  for (const ObservedStep& step : inputs.steps) steps_by_node[step.ref.node].push_back(&step);

  std::set<std::string> gangs;
  for (const ObservedNode* node : inputs.nodes) {
    remediation::NodeView view;
    view.name = node->name;
    view.pool = LabelOf(*node, config.pool_label);
    view.domain = LabelOf(*node, config.failure_domain_label);
    view.conditions = node->conditions;
    view.opted_out =
        LabelOf(*node, std::string(remediation::kOptOutLabel)) == remediation::kOptOutValue;
    view.unschedulable = node->unschedulable;
    view.has_unhealthy_taint = node->unhealthy_taint;
    view.has_repair_taint = node->repair_taint;
    if (!node->record_json.empty()) {
      Result<remediation::NodeRecord> record = remediation::DecodeRecord(node->record_json);
      if (!record.ok()) {
        out.problems.push_back("node " + node->name + ": annotation " +
                               std::string(remediation::kRecordAnnotation) + ": " +
                               record.message() + "; the node is left alone until it is fixed");
        continue;
      }
      view.record = std::move(record).value();
    }
    for (const ObservedPod* pod : pods_by_node[node->name]) {
      remediation::PodView p;
      p.key = pod->key;
      p.uid = pod->uid;
      p.daemonset = pod->daemonset;
      p.mirror = pod->mirror;
      p.terminating = pod->terminating;
      p.gang = pod->gang;
      p.pdb_blocked = inputs.pdb_blocked.count(pod->uid) > 0;
      if (!p.gang.empty()) gangs.insert(p.gang);
      view.pods.push_back(std::move(p));
    }
    std::sort(view.pods.begin(), view.pods.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
    // The step the record has in flight; another (an earlier attempt, a closed incident) is
    // not this one's outcome.
    const remediation::NodeRecord& r = view.record;
    for (const ObservedStep* step : steps_by_node[node->name]) {
      if (step->ref.incident == r.incident && step->ref.step == r.step &&
          step->ref.attempt == r.attempts) {
        view.step = ObserveStep(*step, *node, config);
      }
    }
    out.view.nodes.push_back(std::move(view));
  }
  for (const ObservedPod* pod : inputs.pods) {
    if (pod->gang.empty() || gangs.count(pod->gang) == 0 || pod->node.empty()) continue;
    out.view.gangs[pod->gang].push_back({pod->key, pod->uid, pod->node, pod->terminating});
  }
  for (auto& [gang, members] : out.view.gangs) {
    std::sort(members.begin(), members.end(),
              [](const auto& a, const auto& b) { return a.key < b.key; });
  }
  return out;
}

}  // namespace quotient::remediator
