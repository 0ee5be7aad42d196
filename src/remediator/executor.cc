#include "remediator/executor.h"

#include <curl/curl.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "core/node_health.h"
#include "core/time_text.h"
#include "remediation/record_codec.h"

namespace quotient::remediator {
namespace {

using nlohmann::json;
namespace r = remediation;

std::string KindOf(const r::Action& action) {
  return std::visit(
      [](const auto& a) -> std::string {
        using T = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<T, r::SetRecord>) return "SetRecord";
        if constexpr (std::is_same_v<T, r::Cordon>) return "Cordon";
        if constexpr (std::is_same_v<T, r::Evict>) return "Evict";
        if constexpr (std::is_same_v<T, r::ForceDelete>) return "ForceDelete";
        if constexpr (std::is_same_v<T, r::StartStep>) return "StartStep";
        if constexpr (std::is_same_v<T, r::StartValidation>) return "StartValidation";
        if constexpr (std::is_same_v<T, r::Uncordon>) return "Uncordon";
        if constexpr (std::is_same_v<T, r::RemoveTaints>) return "RemoveTaints";
        if constexpr (std::is_same_v<T, r::Escalate>) return "Escalate";
        if constexpr (std::is_same_v<T, r::Event>) return "Event";
        return "Skipped";
      },
      action);
}

std::string NodeOf(const r::Action& action) {
  return std::visit([](const auto& a) { return a.node; }, action);
}

template <typename T>
Status FromApi(const kubeclient::ApiResult<T>& s, const std::string& what) {
  if (s.ok()) return Status::Ok();
  return Status::Error(what + ": " + s.error().Describe());
}

template <typename T>
bool NotFound(const kubeclient::ApiResult<T>& s) {
  return s.Is(kubeclient::ApiReason::kNotFound);
}

std::pair<std::string, std::string> SplitKey(const std::string& key) {
  const auto slash = key.find('/');
  if (slash == std::string::npos) return {"", key};
  return {key.substr(0, slash), key.substr(slash + 1)};
}

// Drops our taint `key` from the node's list; adds it back with `value` when `value` is set.
void SetTaint(json& node, std::string_view key, const std::optional<std::string>& value) {
  json taints = json::array();
  if (node["spec"].contains("taints")) {
    for (const json& t : node["spec"]["taints"]) {
      if (t.value("key", "") != key) taints.push_back(t);
    }
  }
  if (value) taints.push_back({{"key", key}, {"value", *value}, {"effect", "NoSchedule"}});
  if (taints.empty()) {
    node["spec"].erase("taints");
  } else {
    node["spec"]["taints"] = taints;
  }
}

std::string Outcome(r::State state, r::State before) {
  switch (state) {
    case r::State::kEscalated:
      return "escalated";
    case r::State::kCancelled:
      return "cancelled";
    case r::State::kHealthy:
      return before == r::State::kValidating ? "recovered" : "closed";
    default:
      return "open";
  }
}

size_t DiscardBody(char*, size_t size, size_t count, void*) { return size * count; }

}  // namespace

WebhookCaller CurlWebhookCaller() {
  return [](const std::string& url, const std::string& body,
            std::chrono::seconds timeout) -> Result<int> {
    CURL* curl = curl_easy_init();
    if (curl == nullptr) return Result<int>::Error("cannot start libcurl");
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));  // NOLINT
    curl_easy_setopt(curl, CURLOPT_TIMEOUT, static_cast<long>(timeout.count()));    // NOLINT
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, DiscardBody);
    const CURLcode rc = curl_easy_perform(curl);
    long code = 0;  // NOLINT(runtime/int): libcurl's type
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    if (rc != CURLE_OK) return Result<int>::Error(std::string(curl_easy_strerror(rc)));
    return static_cast<int>(code);
  };
}

PlanExecutor::PlanExecutor(kubeclient::Client& client, kubeclient::EventRecorder& events,
                           ExecutorOptions options, WebhookCaller webhook)
    : client_(client),
      events_(events),
      options_(std::move(options)),
      webhook_(std::move(webhook)) {}

ExecutionStats PlanExecutor::Stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

std::set<std::string> PlanExecutor::PdbBlocked(core::Time now, std::chrono::seconds retry) {
  std::lock_guard lock(mu_);
  std::set<std::string> out;
  for (const auto& [uid, at] : pdb_refused_) {
    if (at + retry > now) out.insert(uid);
  }
  return out;
}

void PlanExecutor::ForgetPods(const std::set<std::string>& live_uids) {
  std::lock_guard lock(mu_);
  std::erase_if(pdb_refused_, [&](const auto& e) { return live_uids.count(e.first) == 0; });
}

int PlanExecutor::Apply(const r::Plan& plan, const r::Config& config,
                        const std::map<std::string, const ObservedNode*>& nodes, core::Time now) {
  std::set<std::string> failed_nodes;
  int failures = 0;
  for (const r::Action& action : plan.actions) {
    const std::string node = NodeOf(action);
    const std::string kind = KindOf(action);
    if (failed_nodes.count(node) > 0) continue;
    Status s = ApplyOne(action, config, nodes, now);
    std::lock_guard lock(mu_);
    if (s.ok()) {
      if (kind != "Skipped") ++stats_.applied[kind];
      continue;
    }
    ++failures;
    ++stats_.failed[kind];
    stats_.last_error = r::Describe(action) + ": " + s.message();
    spdlog::warn(
        "remediation: {} failed: {}; the rest of node {}'s plan waits for the next "
        "reconcile",
        r::Describe(action), s.message(), node);
    failed_nodes.insert(node);
  }
  return failures;
}

Status PlanExecutor::ApplyOne(const r::Action& action, const r::Config& config,
                              const std::map<std::string, const ObservedNode*>& nodes,
                              core::Time now) {
  auto found = nodes.find(NodeOf(action));
  const ObservedNode* node = found == nodes.end() ? nullptr : found->second;
  if (!r::IsMutating(action) && !std::holds_alternative<r::Event>(action)) {
    const auto& skipped = std::get<r::Skipped>(action);
    spdlog::info("remediation: node {}: held back ({}): {}", skipped.node, skipped.rail,
                 skipped.why);
    std::lock_guard lock(mu_);
    ++stats_.skipped[skipped.rail];
    return Status::Ok();
  }
  if (const auto* e = std::get_if<r::Event>(&action)) {
    kubeclient::EventRecord record;
    record.regarding = {"v1", "Node", "", e->node, node == nullptr ? "" : node->uid};
    record.type = e->type == r::EventType::kWarning ? "Warning" : "Normal";
    record.reason = e->reason;
    record.action = "Remediating";
    record.note = e->message;
    events_.Record(std::move(record));
    spdlog::info("remediation: node {}: {}: {}", e->node, e->reason, e->message);
    return Status::Ok();
  }
  // Evictions log themselves when they go out (a PDB-blocked one is asked every evictionRetry).
  if (!std::holds_alternative<r::Evict>(action))
    spdlog::info("remediation: {}", r::Describe(action));
  if (const auto* a = std::get_if<r::SetRecord>(&action)) {
    Status s = SetRecord(*a);
    if (!s.ok()) return s;
    r::NodeRecord before;
    if (node != nullptr && !node->record_json.empty()) {
      if (auto old = r::DecodeRecord(node->record_json); old.ok()) before = *old;
    }
    // The incident record, for nodes taken out: a Suspect blip that cleared leaves none.
    if (!a->record.incident.empty() && a->record.state != r::State::kSuspect) {
      return WriteIncident(a->node, a->record, Outcome(a->record.state, before.state));
    }
    if (a->record.incident.empty() && !before.incident.empty() &&
        before.state != r::State::kSuspect) {
      r::NodeRecord closed = a->record;
      closed.incident = before.incident;
      closed.incident_opened = before.incident_opened;
      closed.fault_class = before.fault_class;
      closed.fault_reason = before.fault_reason;
      return WriteIncident(a->node, closed, Outcome(a->record.state, before.state));
    }
    return Status::Ok();
  }
  if (const auto* a = std::get_if<r::Cordon>(&action)) {
    return EditTaints(a->node, [&](json& n) {
      n["spec"]["unschedulable"] = true;
      SetTaint(n, core::kUnhealthyTaint, a->fault_class);
    });
  }
  if (const auto* a = std::get_if<r::Evict>(&action)) return Evict(*a, config, now);
  if (const auto* a = std::get_if<r::ForceDelete>(&action)) {
    const auto [ns, name] = SplitKey(a->pod);
    kubeclient::DeleteOptions options;
    options.grace_period_seconds = 0;
    options.precondition_uid = a->uid;
    kubeclient::ApiStatus s = client_.Delete(kubeclient::resources::Pods(), ns, name, options);
    if (NotFound(s)) return Status::Ok();
    return FromApi(s, "delete pod " + a->pod);
  }
  if (const auto* a = std::get_if<r::StartStep>(&action)) return StartStep(*a, config, node);
  if (const auto* a = std::get_if<r::StartValidation>(&action)) {
    return StartValidation(*a, config, node);
  }
  if (const auto* a = std::get_if<r::Uncordon>(&action)) {
    return EditTaints(a->node, [&](json& n) {
      n["spec"].erase("unschedulable");
      SetTaint(n, core::kUnhealthyTaint, std::nullopt);
      SetTaint(n, core::kHardwareRepairTaint, std::nullopt);
    });
  }
  if (const auto* a = std::get_if<r::RemoveTaints>(&action)) {
    return EditTaints(a->node, [&](json& n) {
      SetTaint(n, core::kUnhealthyTaint, std::nullopt);
      SetTaint(n, core::kHardwareRepairTaint, std::nullopt);
    });
  }
  if (const auto* a = std::get_if<r::Escalate>(&action)) {
    Status s = EditTaints(a->node, [&](json& n) {
      n["spec"]["unschedulable"] = true;
      SetTaint(n, core::kHardwareRepairTaint, std::string("true"));
    });
    if (!s.ok()) return s;
    r::NodeRecord record;
    record.state = r::State::kEscalated;
    record.incident = a->incident;
    record.evidence = a->evidence;
    record.history = a->history;
    record.waiting = a->why;
    return WriteIncident(a->node, record, "escalated");
  }
  return Status::Error("unknown action");
}

Status PlanExecutor::SetRecord(const r::SetRecord& a) {
  json patch = {
      {"metadata",
       {{"labels", {{std::string(r::kStateLabel), r::StateName(a.record.state)}}},
        {"annotations", {{std::string(r::kRecordAnnotation), r::EncodeRecord(a.record)}}}}}};
  return FromApi(client_.Patch(kubeclient::resources::Nodes(), "", a.node,
                               kubeclient::PatchType::kMerge, patch.dump()),
                 "patch node " + a.node);
}

Status PlanExecutor::EditTaints(const std::string& node, const std::function<void(json&)>& edit) {
  auto result =
      client_.UpdateWithRetry(kubeclient::resources::Nodes(), "", node,
                              [&](const kubeclient::RawObject& raw) -> Result<std::string> {
                                json n = json::parse(raw.json, nullptr, false);
                                if (!n.is_object())
                                  return Result<std::string>::Error("node " + node + ": not JSON");
                                if (!n.contains("spec") || !n["spec"].is_object())
                                  n["spec"] = json::object();
                                edit(n);
                                return n.dump();
                              });
  return FromApi(result, "update node " + node);
}

Status PlanExecutor::Evict(const r::Evict& a, const r::Config& config, core::Time now) {
  {
    std::lock_guard lock(mu_);
    auto it = pdb_refused_.find(a.uid);
    if (it != pdb_refused_.end() && it->second + config.eviction_retry > now) {
      return Status::Ok();  // asked recently; the budget has not had time to change
    }
  }
  spdlog::info("remediation: {}", r::Describe(remediation::Action(a)));
  const auto [ns, name] = SplitKey(a.pod);
  const std::string mark = "drained from node " + a.node + " for a fault (incident " + a.incident +
                           ") at " + core::FormatRfc3339(now);
  const json patch = {
      {"metadata", {{"annotations", {{std::string(core::kDrainedForFaultAnnotation), mark}}}}}};
  auto marked = client_.Patch(kubeclient::resources::Pods(), ns, name,
                              kubeclient::PatchType::kMerge, patch.dump());
  if (!marked.ok()) {
    if (NotFound(marked)) return Status::Ok();  // already gone
    return FromApi(marked, "annotate pod " + a.pod);
  }
  // The PodGroup, once per incident: the scheduler requeues a gang drained for a fault at once.
  if (!a.gang.empty()) {
    const std::string once = a.gang + "/" + a.incident;
    bool first = false;
    {
      std::lock_guard lock(mu_);
      first = gangs_marked_.insert(once).second;
    }
    if (first) {
      const auto [gns, gname] = SplitKey(a.gang);
      auto pg = client_.Patch(kubeclient::resources::PodGroups(), gns, gname,
                              kubeclient::PatchType::kMerge, patch.dump());
      if (!pg.ok() && !NotFound(pg)) {
        spdlog::warn("remediation: cannot mark PodGroup {} drained: {}", a.gang,
                     pg.error().Describe());
      }
    }
  }
  auto outcome = client_.Evict(ns, name, a.uid);
  if (!outcome.ok()) {
    if (NotFound(outcome)) return Status::Ok();
    return FromApi(outcome, "evict pod " + a.pod);
  }
  if (*outcome == kubeclient::EvictionOutcome::kBlockedByDisruptionBudget) {
    std::lock_guard lock(mu_);
    pdb_refused_[a.uid] = now;
    spdlog::info("remediation: eviction of {} refused by a PodDisruptionBudget; retrying in {}s",
                 a.pod, config.eviction_retry.count());
  }
  return Status::Ok();
}

Status PlanExecutor::CreateIfAbsent(const kubeclient::Resource& resource,
                                    const std::string& object_json) {
  auto created = client_.Create(resource, options_.pods.namespace_name, object_json);
  if (created.ok() || created.Is(kubeclient::ApiReason::kAlreadyExists)) return Status::Ok();
  return FromApi(created, "create " + resource.plural);
}

Status PlanExecutor::StartStep(const r::StartStep& a, const r::Config& config,
                               const ObservedNode* node) {
  auto it = config.steps.find(a.step);
  if (it == config.steps.end()) return Status::Error("no step named " + a.step + " in the config");
  const r::StepSpec& spec = it->second;
  const StepRef ref{a.node, a.incident, a.step, a.attempt};
  switch (spec.kind) {
    case r::StepKind::kPod:
      return CreateIfAbsent(
          kubeclient::resources::Pods(),
          StepPodJson(ref, spec.command, node == nullptr ? "" : node->boot_id, options_.pods));
    case r::StepKind::kJob: {
      Result<std::string> job = StepJobJson(ref, spec.job_spec_json, options_.pods.namespace_name);
      if (!job.ok()) return job.status();
      return CreateIfAbsent(kubeclient::resources::Jobs(), *job);
    }
    case r::StepKind::kWebhook: {
      // Called once: the result, kept in a ConfigMap of the step's name, is what the next
      // reconcile reads; an existing one means it was called already.
      const std::string name = StepObjectName(ref);
      auto existing =
          client_.Get(kubeclient::resources::ConfigMaps(), options_.pods.namespace_name, name);
      if (existing.ok()) return Status::Ok();
      if (!NotFound(existing)) return FromApi(existing, "get " + name);
      r::NodeRecord record;
      if (node != nullptr && !node->record_json.empty()) {
        if (auto decoded = r::DecodeRecord(node->record_json); decoded.ok()) record = *decoded;
      }
      const std::chrono::seconds timeout = std::min(a.timeout, options_.webhook_timeout);
      Result<int> answer = webhook_(spec.url, WebhookPayload(ref, record.evidence), timeout);
      const bool succeeded = answer.ok() && *answer >= 200 && *answer < 300;
      const std::string message = answer.ok()
                                      ? "HTTP " + std::to_string(*answer) + " from " + spec.url
                                      : "no answer from " + spec.url + ": " + answer.message();
      return CreateIfAbsent(
          kubeclient::resources::ConfigMaps(),
          StepResultConfigMapJson(ref, options_.pods.namespace_name, succeeded, message));
    }
  }
  return Status::Error("unknown step kind");
}

Status PlanExecutor::StartValidation(const r::StartValidation& a, const r::Config& config,
                                     const ObservedNode* node) {
  std::vector<std::string> command = config.validation_command;
  if (node != nullptr) {
    command.push_back("--expected-gpus");
    command.push_back(std::to_string(node->gpus));
  }
  const StepRef ref{a.node, a.incident, std::string(r::kValidationStep), a.attempt};
  return CreateIfAbsent(kubeclient::resources::Pods(),
                        ValidationPodJson(ref, command, options_.pods));
}

Status PlanExecutor::WriteIncident(const std::string& node, const r::NodeRecord& record,
                                   const std::string& outcome) {
  const std::string name = IncidentRecordName(node, record.incident);
  auto applied =
      client_.Apply(kubeclient::resources::ConfigMaps(), options_.pods.namespace_name, name,
                    IncidentRecordJson(node, options_.pods.namespace_name, record, outcome),
                    options_.field_manager, true);
  return FromApi(applied, "write incident record " + name);
}

}  // namespace quotient::remediator
