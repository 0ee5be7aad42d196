// v1 Pod -> core::PodObject.
#include <cstdint>
#include <string>

#include "kube/affinity_codec.h"
#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {
namespace {

std::optional<core::PodPhase> PhaseFromString(std::string_view phase) {
  if (phase == "Pending") return core::PodPhase::kPending;
  if (phase == "Running") return core::PodPhase::kRunning;
  if (phase == "Succeeded") return core::PodPhase::kSucceeded;
  if (phase == "Failed") return core::PodPhase::kFailed;
  if (phase == "Unknown") return core::PodPhase::kUnknown;
  return std::nullopt;
}

// One container's requests. Requests round up (a pod never gets less than it asked for); a
// resource with only a limit gets request = limit, as the API server's defaulting does.
core::ContainerResources DecodeContainer(FieldDecoder& d, const Value& value,
                                         const std::string& field) {
  core::ContainerResources out;
  const Value* container = d.Mapping(&value, field);
  if (container == nullptr) return out;
  out.name = d.String(container->Find("name"), FieldPath(field, "name")).value_or("");
  const std::string resources_field = FieldPath(field, "resources");
  const Value* resources = d.Mapping(container->Find("resources"), resources_field);
  if (resources == nullptr) return out;

  const std::string requests_field = FieldPath(resources_field, "requests");
  const std::string limits_field = FieldPath(resources_field, "limits");
  const Value* requests = d.Mapping(resources->Find("requests"), requests_field);
  const Value* limits = d.Mapping(resources->Find("limits"), limits_field);
  if (limits != nullptr) {
    // Limits first, then the requests on top: an explicit request always wins.
    DecodeResourceList(d, limits, limits_field, core::Rounding::kUp, out.requests);
    out.gpu_limit = limits->Find(core::kGpuResource) != nullptr;
    if (requests != nullptr) {
      // Drop defaulted values for resources that have their own request, even if that request
      // turns out malformed (it is then a problem, not silently replaced by the limit).
      for (const std::string& name : requests->keys()) SetResource(out.requests, name, {});
    }
  }
  DecodeResourceList(d, requests, requests_field, core::Rounding::kUp, out.requests);
  return out;
}

// The container's ports that bind a hostPort, appended to `out`. Only those matter for
// scheduling: two pods cannot bind the same host port, protocol and address on one node. A port
// with a bad hostPort or protocol is a problem and left out.
void DecodeHostPorts(FieldDecoder& d, const Value& container, const std::string& field,
                     std::vector<core::HostPort>& out) {
  const std::string ports_field = FieldPath(field, "ports");
  const Value* ports = d.Sequence(container.Find("ports"), ports_field);
  if (ports == nullptr) return;
  for (size_t i = 0; i < ports->size(); ++i) {
    const std::string port_field = FieldPath(ports_field, i);
    const Value* port = d.Mapping(&ports->items()[i], port_field);
    if (port == nullptr) continue;
    // 0 or absent: no host port.
    const std::optional<int64_t> host_port =
        d.Integer(port->Find("hostPort"), FieldPath(port_field, "hostPort"), 0, 65535);
    if (!host_port || *host_port == 0) continue;
    core::HostPort decoded;
    decoded.port = static_cast<int32_t>(*host_port);
    const std::string protocol_field = FieldPath(port_field, "protocol");
    const Value* protocol_value = port->Find("protocol");
    const std::optional<std::string> protocol = d.String(protocol_value, protocol_field);
    if (protocol_value != nullptr && !protocol_value->is_null() && !protocol) continue;
    if (protocol && !protocol->empty()) {  // "" defaults to TCP, as in the API server
      if (*protocol != "TCP" && *protocol != "UDP" && *protocol != "SCTP") {
        d.Problem(protocol_field, "unknown protocol \"" + *protocol + "\" (TCP, UDP or SCTP)");
        continue;
      }
      decoded.protocol = *protocol;
    }
    decoded.host_ip = d.String(port->Find("hostIP"), FieldPath(port_field, "hostIP")).value_or("");
    out.push_back(std::move(decoded));
  }
}

std::vector<core::ContainerResources> DecodeContainers(FieldDecoder& d, const Value* spec,
                                                       std::string_view key,
                                                       std::vector<core::HostPort>& host_ports) {
  std::vector<core::ContainerResources> out;
  const std::string field = FieldPath("spec", key);
  const Value* containers = d.Sequence(spec->Find(key), field);
  if (containers == nullptr) return out;
  for (size_t i = 0; i < containers->size(); ++i) {
    const Value& container = containers->items()[i];
    out.push_back(DecodeContainer(d, container, FieldPath(field, i)));
    // A container that is not a map is already a problem from DecodeContainer.
    if (container.is_mapping()) DecodeHostPorts(d, container, FieldPath(field, i), host_ports);
  }
  return out;
}

void DecodeTolerations(FieldDecoder& d, const Value* spec, core::PodObject& pod) {
  const Value* tolerations = d.Sequence(spec->Find("tolerations"), "spec.tolerations");
  if (tolerations == nullptr) return;
  for (size_t i = 0; i < tolerations->size(); ++i) {
    const std::string field = FieldPath("spec.tolerations", i);
    const Value* toleration = d.Mapping(&tolerations->items()[i], field);
    if (toleration == nullptr) continue;
    core::Toleration out;
    out.key = d.String(toleration->Find("key"), FieldPath(field, "key")).value_or("");
    out.op = d.String(toleration->Find("operator"), FieldPath(field, "operator")).value_or("Equal");
    out.value = d.String(toleration->Find("value"), FieldPath(field, "value")).value_or("");
    out.effect = d.String(toleration->Find("effect"), FieldPath(field, "effect")).value_or("");
    pod.tolerations.push_back(std::move(out));
  }
}

void DecodeSpec(FieldDecoder& d, const Value* spec, core::PodObject& pod) {
  pod.scheduler_name =
      d.String(spec->Find("schedulerName"), "spec.schedulerName").value_or("default-scheduler");
  pod.node_name = d.String(spec->Find("nodeName"), "spec.nodeName").value_or("");
  pod.priority_class_name =
      d.String(spec->Find("priorityClassName"), "spec.priorityClassName").value_or("");
  pod.priority = d.Int32(spec->Find("priority"), "spec.priority");
  if (const Value* gates = d.Sequence(spec->Find("schedulingGates"), "spec.schedulingGates")) {
    pod.scheduling_gated = gates->size() > 0;
  }
  pod.containers = DecodeContainers(d, spec, "containers", pod.host_ports);
  pod.init_containers = DecodeContainers(d, spec, "initContainers", pod.host_ports);
  DecodeResourceList(d, spec->Find("overhead"), "spec.overhead", core::Rounding::kUp, pod.overhead);
  pod.node_selector = d.StringMap(spec->Find("nodeSelector"), "spec.nodeSelector");
  DecodeTolerations(d, spec, pod);
  pod.affinity = DecodeAffinity(d, spec->Find("affinity"), "spec.affinity");
}

}  // namespace

std::optional<core::PodObject> DecodePod(const Value& object, const DecodeContext& context) {
  core::PodObject pod;
  std::optional<FieldDecoder> decoder =
      DecodeObjectMeta(object, "Pod", Scope::kNamespaced, context, pod.meta, pod.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;

  if (const Value* spec = d.Mapping(object.Find("spec"), "spec")) DecodeSpec(d, spec, pod);
  if (const Value* status = d.Mapping(object.Find("status"), "status")) {
    if (std::optional<std::string> phase = d.String(status->Find("phase"), "status.phase")) {
      if (std::optional<core::PodPhase> parsed = PhaseFromString(*phase)) {
        pod.phase = *parsed;
      } else {
        d.Problem("status.phase", "unknown phase \"" + *phase + "\"");
        pod.phase = core::PodPhase::kUnknown;
      }
    }
  }
  return pod;
}

}  // namespace quotient::kube
