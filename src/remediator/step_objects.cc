#include "remediator/step_objects.h"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/time_text.h"
#include "remediation/record_codec.h"

namespace quotient::remediator {
namespace {

using nlohmann::json;

constexpr size_t kMaxName = 253;  // a DNS subdomain

// FNV-1a: stable across builds and machines, so a name made after a restart is the same.
uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string FitName(std::string name) {
  if (name.size() <= kMaxName) return name;
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(Fnv1a(name)));
  // Keep the end (incident, step and attempt tell objects of one node apart) and stay a valid
  // name: the kept part must not start with '-' or '.'.
  std::string tail = name.substr(name.size() - (kMaxName - 17));
  while (!tail.empty() && (tail.front() == '-' || tail.front() == '.')) tail.erase(0, 1);
  return std::string(hash) + "-" + tail;
}

json StepMetadata(const StepRef& ref, const std::string& namespace_name) {
  return {{"name", StepObjectName(ref)},
          {"namespace", namespace_name},
          {"labels", {{std::string(kStepLabel), ref.step}}},
          {"annotations",
           {{std::string(kStepNodeAnnotation), ref.node},
            {std::string(kStepIncidentAnnotation), ref.incident},
            {std::string(kStepAttemptAnnotation), std::to_string(ref.attempt)}}}};
}

json TolerateEverything() { return json::array({{{"operator", "Exists"}}}); }

json StepEnv(const StepRef& ref) {
  return json::array({{{"name", "NODE_NAME"}, {"value", ref.node}},
                      {{"name", "INCIDENT"}, {"value", ref.incident}},
                      {{"name", "STEP"}, {"value", ref.step}}});
}

json BasePod(const StepRef& ref, const std::vector<std::string>& command,
             const PodStepOptions& options) {
  json spec = {{"nodeName", ref.node},
               {"restartPolicy", "Never"},
               {"tolerations", TolerateEverything()},
               {"automountServiceAccountToken", false},
               {"containers", json::array({{{"name", "step"},
                                            {"image", options.image},
                                            {"command", command},
                                            {"env", StepEnv(ref)}}})}};
  if (!options.service_account.empty()) spec["serviceAccountName"] = options.service_account;
  if (!options.runtime_class.empty()) spec["runtimeClassName"] = options.runtime_class;
  for (const std::string& secret : options.image_pull_secrets) {
    spec["imagePullSecrets"].push_back({{"name", secret}});
  }
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", StepMetadata(ref, options.namespace_name)},
          {"spec", spec}};
}

}  // namespace

std::string StepObjectName(const StepRef& ref) {
  return FitName(ref.node + "-" + ref.incident + "-" + ref.step + "-" +
                 std::to_string(ref.attempt));
}

std::string IncidentRecordName(const std::string& node, const std::string& incident) {
  return FitName("incident-" + node + "-" + incident);
}

std::string StepPodJson(const StepRef& ref, const std::vector<std::string>& command,
                        const std::string& boot_id, const PodStepOptions& options) {
  json pod = BasePod(ref, command, options);
  pod["metadata"]["annotations"][std::string(kBootIdAnnotation)] = boot_id;
  pod["spec"]["hostPID"] = true;
  // Root as well: the image runs as an unprivileged user, whose effective capabilities a
  // privileged container does not raise, and nsenter into the host needs them.
  pod["spec"]["containers"][0]["securityContext"] = {{"privileged", true}, {"runAsUser", 0}};
  return pod.dump();
}

std::string ValidationPodJson(const StepRef& ref, const std::vector<std::string>& command,
                              const PodStepOptions& options) {
  json pod = BasePod(ref, command, options);
  json& env = pod["spec"]["containers"][0]["env"];
  env.push_back({{"name", "NVIDIA_VISIBLE_DEVICES"}, {"value", "all"}});
  env.push_back({{"name", "NVIDIA_DRIVER_CAPABILITIES"}, {"value", "utility"}});
  return pod.dump();
}

Result<std::string> StepJobJson(const StepRef& ref, const std::string& job_spec_json,
                                const std::string& namespace_name) {
  json spec = json::parse(job_spec_json, nullptr, false);
  const std::string where = "steps." + ref.step + ".jobTemplate";
  if (!spec.is_object()) return Result<std::string>::Error(where + ": not an object");
  json* containers = nullptr;
  if (spec.contains("template") && spec["template"].is_object() &&
      spec["template"].contains("spec") && spec["template"]["spec"].is_object()) {
    json& pod_spec = spec["template"]["spec"];
    if (pod_spec.contains("containers") && pod_spec["containers"].is_array()) {
      containers = &pod_spec["containers"];
    }
  }
  if (containers == nullptr || containers->empty()) {
    return Result<std::string>::Error(where + ".template.spec.containers: missing or empty");
  }
  for (json& c : *containers) {
    if (!c.is_object()) {
      return Result<std::string>::Error(where + ".template.spec.containers: not an object");
    }
    json env = c.value("env", json::array());
    for (const json& e : StepEnv(ref)) env.push_back(e);
    c["env"] = env;
  }
  return json{{"apiVersion", "batch/v1"},
              {"kind", "Job"},
              {"metadata", StepMetadata(ref, namespace_name)},
              {"spec", spec}}
      .dump();
}

namespace {
json EvidenceJson(const std::vector<remediation::Evidence>& evidence) {
  json out = json::array();
  for (const remediation::Evidence& e : evidence) {
    out.push_back({{"type", e.type},
                   {"reason", e.reason},
                   {"message", e.message},
                   {"since", core::FormatRfc3339(e.since)}});
  }
  return out;
}
}  // namespace

std::string WebhookPayload(const StepRef& ref, const std::vector<remediation::Evidence>& evidence) {
  return json{{"node", ref.node},
              {"incident", ref.incident},
              {"step", ref.step},
              {"attempt", ref.attempt},
              {"evidence", EvidenceJson(evidence)}}
      .dump();
}

std::string StepResultConfigMapJson(const StepRef& ref, const std::string& namespace_name,
                                    bool succeeded, const std::string& message) {
  return json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", StepMetadata(ref, namespace_name)},
              {"data",
               {{std::string(kStepResultStatusKey), succeeded ? "succeeded" : "failed"},
                {std::string(kStepResultMessageKey), message}}}}
      .dump();
}

std::string IncidentRecordJson(const std::string& node, const std::string& namespace_name,
                               const remediation::NodeRecord& record, const std::string& outcome) {
  json labels = json::object();
  // A label value is at most 63 characters; longer node names are in the data only.
  labels[std::string(kIncidentLabel)] = node.size() <= 63 ? node : "long-node-name";
  return json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata",
               {{"name", IncidentRecordName(node, record.incident)},
                {"namespace", namespace_name},
                {"labels", labels}}},
              {"data",
               {{"node", node},
                {"incident", record.incident},
                {"state", std::string(remediation::StateName(record.state))},
                {"outcome", outcome},
                {"record.json", remediation::EncodeRecord(record)}}}}
      .dump();
}

Result<StepRef> ReadStepRef(const std::map<std::string, std::string>& labels,
                            const std::map<std::string, std::string>& annotations) {
  StepRef ref;
  auto need = [&](const std::map<std::string, std::string>& from, std::string_view key,
                  std::string& out) -> Status {
    auto it = from.find(std::string(key));
    if (it == from.end() || it->second.empty()) {
      return Status::Error("missing " + std::string(key));
    }
    out = it->second;
    return Status::Ok();
  };
  std::string attempt;
  for (Status s :
       {need(labels, kStepLabel, ref.step), need(annotations, kStepNodeAnnotation, ref.node),
        need(annotations, kStepIncidentAnnotation, ref.incident),
        need(annotations, kStepAttemptAnnotation, attempt)}) {
    if (!s.ok()) return Result<StepRef>::Error(s.message());
  }
  const auto [end, ec] =
      std::from_chars(attempt.data(), attempt.data() + attempt.size(), ref.attempt);
  if (ec != std::errc() || end != attempt.data() + attempt.size() || ref.attempt < 1) {
    return Result<StepRef>::Error(std::string(kStepAttemptAnnotation) +
                                  ": expected a positive integer, got \"" + attempt + "\"");
  }
  return ref;
}

}  // namespace quotient::remediator
