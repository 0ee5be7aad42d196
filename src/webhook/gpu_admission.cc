#include "webhook/gpu_admission.h"

#include <openssl/evp.h>

#include <vector>

#include "core/gpu_sharing.h"
#include "kube/loader.h"

namespace quotient::webhook {

namespace {

using nlohmann::json;

constexpr char kConfigMapAnnotation[] = "runai/shared-gpu-configmap";
constexpr char kInterposerVolume[] = "quotient-interposer";
// What the scheduler writes into the container's ConfigMap before it binds the pod.
constexpr const char* kConfigMapKeys[] = {"NVIDIA_VISIBLE_DEVICES", "RUNAI_NUM_OF_GPUS",
                                          "GPU_PORTION", "QUOTIENT_GPU_MEMORY_LIMIT"};

AdmissionResult Refuse(std::string message) {
  AdmissionResult r;
  r.allowed = false;
  r.message = std::move(message);
  return r;
}

// "~" and "/" escaped for a JSON pointer (RFC 6901).
std::string Pointer(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// Appends `items` to the list at `path` of `object` (creating it when absent).
void AppendAll(json& patch, const json& object, const std::string& path, const std::string& key,
               const std::vector<json>& items) {
  if (!object.contains(key) || !object[key].is_array()) {
    patch.push_back({{"op", "add"}, {"path", path + "/" + key}, {"value", items}});
    return;
  }
  for (const json& item : items) {
    patch.push_back({{"op", "add"}, {"path", path + "/" + key + "/-"}, {"value", item}});
  }
}

// `<name or generateName>-<7 characters of the request uid>-shared-gpu`, as KAI names it.
std::string ConfigMapPrefix(const json& meta, const std::string& request_uid) {
  std::string base = meta.value("name", "");
  if (base.empty()) base = meta.value("generateName", "");
  while (!base.empty() && base.back() == '-') base.pop_back();
  if (base.size() > 30) base.resize(30);
  while (!base.empty() && base.back() == '-') base.pop_back();
  std::string suffix;
  for (char c : request_uid) {
    if (suffix.size() == 7) break;
    if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z')) suffix += c;
  }
  return (base.empty() ? "pod" : base) + "-" + suffix + "-shared-gpu";
}

}  // namespace

std::string Base64(std::string_view text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                static_cast<int>(text.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<AdmissionRequest> ParseAdmissionReview(std::string_view text) {
  using R = Result<AdmissionRequest>;
  const json review = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (review.is_discarded() || !review.is_object()) return R::Error("not a JSON object");
  if (!review.contains("request") || !review["request"].is_object()) {
    return R::Error("request: missing");
  }
  const json& request = review["request"];
  AdmissionRequest out;
  out.uid = request.value("uid", "");
  out.operation = request.value("operation", "");
  if (out.uid.empty()) return R::Error("request.uid: missing");
  if (!request.contains("object") || !request["object"].is_object()) {
    return R::Error("request.object: missing");
  }
  out.object = request["object"];
  return out;
}

AdmissionResult ReviewPod(const AdmissionRequest& request, const AdmissionSettings& settings) {
  const json& pod = request.object;
  const json spec = pod.value("spec", json::object());
  if (spec.value("schedulerName", "default-scheduler") != settings.scheduler_name) return {};
  // The scheduler's own reading of the pod, so the webhook refuses exactly what it would.
  json typed = pod;
  typed["apiVersion"] = "v1";
  typed["kind"] = "Pod";
  if (!typed.contains("metadata") || !typed["metadata"].contains("name")) {
    typed["metadata"]["name"] = pod.value("metadata", json::object()).value("generateName", "pod");
  }
  kube::LoadResult loaded;
  kube::DecodeManifestText(typed.dump(), "admission", loaded);
  if (loaded.objects.pods.empty()) {
    return Refuse(loaded.diagnostics.empty() ? "the pod could not be read"
                                             : loaded.diagnostics.front().ToString());
  }
  const core::PodObject& p = loaded.objects.pods.front();
  core::ResourceVector requested;
  for (const core::ContainerResources& c : p.containers) requested += c.requests;
  Result<core::GpuSharing> sharing = core::ReadGpuSharing(p, requested);
  if (!sharing.ok()) return Refuse("pod " + p.meta.name + ": " + sharing.message());
  if (!sharing->is_shared()) return {};
  if (!settings.gpu_sharing_enabled) {
    return Refuse("pod " + p.meta.name +
                  ": GPU sharing (gpu-fraction, gpu-memory) is disabled on this cluster");
  }
  if (request.operation != "CREATE") return {};  // a container's env is set at creation only

  // The container that receives the GPU: the named one, else the first.
  const json containers = spec.value("containers", json::array());
  size_t index = 0;
  if (!sharing->container_name.empty()) {
    bool found = false;
    for (size_t i = 0; i < containers.size() && !found; ++i) {
      if (containers[i].value("name", "") == sharing->container_name) {
        index = i;
        found = true;
      }
    }
    if (!found) {
      return Refuse("pod " + p.meta.name +
                    ": annotation gpu-fraction-container-name: no container "
                    "named \"" +
                    sharing->container_name + "\"");
    }
  }
  if (containers.empty()) return Refuse("pod " + p.meta.name + ": spec.containers: empty");

  AdmissionResult result;
  json& patch = result.patch;
  const json meta = pod.value("metadata", json::object());
  const json annotations = meta.value("annotations", json::object());
  std::string prefix = annotations.value(kConfigMapAnnotation, "");
  if (prefix.empty()) {
    prefix = ConfigMapPrefix(meta, request.uid);
    if (!meta.contains("annotations") || !meta["annotations"].is_object()) {
      patch.push_back({{"op", "add"},
                       {"path", "/metadata/annotations"},
                       {"value", {{kConfigMapAnnotation, prefix}}}});
    } else {
      patch.push_back({{"op", "add"},
                       {"path", "/metadata/annotations/" + Pointer(kConfigMapAnnotation)},
                       {"value", prefix}});
    }
  }
  const std::string config_map = prefix + "-" + std::to_string(index);
  const std::string container_path = "/spec/containers/" + std::to_string(index);
  const json& container = containers[index];
  std::vector<json> env;
  for (const char* key : kConfigMapKeys) {
    env.push_back({{"name", key},
                   {"valueFrom", {{"configMapKeyRef", {{"name", config_map}, {"key", key}}}}}});
  }
  env.push_back({{"name", "LD_PRELOAD"},
                 {"value", settings.interposer_mount_dir + "/" + settings.interposer_file}});
  AppendAll(patch, container, container_path, "env", env);
  AppendAll(patch, container, container_path, "envFrom",
            {{{"configMapRef", {{"name", config_map + "-evar"}, {"optional", true}}}}});
  AppendAll(patch, container, container_path, "volumeMounts",
            {{{"name", kInterposerVolume},
              {"mountPath", settings.interposer_mount_dir},
              {"readOnly", true}}});
  AppendAll(patch, spec, "/spec", "volumes",
            {{{"name", kInterposerVolume},
              {"hostPath", {{"path", settings.interposer_host_dir}, {"type", "Directory"}}}}});
  return result;
}

std::string AdmissionReviewResponse(const std::string& uid, const AdmissionResult& result) {
  json response = {{"uid", uid}, {"allowed", result.allowed}};
  if (!result.allowed) {
    response["status"] = {{"code", 403}, {"reason", "Forbidden"}, {"message", result.message}};
  }
  if (result.allowed && !result.patch.empty()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = Base64(result.patch.dump());
  }
  return json{
      {"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}}
      .dump();
}

}  // namespace quotient::webhook
