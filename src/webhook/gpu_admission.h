// The admission decisions of `quotient webhook` for GPU-sharing pods (issue 11), as pure
// functions of an AdmissionReview, so they are tested without a server.
//
// Validation, on CREATE and UPDATE of pods of our scheduler: the GPU-sharing annotations must
// read (core::ReadGpuSharing: a fraction in (0, 1], a memory that is a positive integer of MiB,
// not both, not with an nvidia.com/gpu request, gpu-fraction-num-devices only with one of them),
// and sharing must be enabled on the cluster. A refusal names the annotation and what is wrong.
//
// Mutation, on CREATE of a pod that shares GPUs (KAI's, kai-reference §5.3, plus the interposer):
// the GPU container gets NVIDIA_VISIBLE_DEVICES, RUNAI_NUM_OF_GPUS, GPU_PORTION and
// QUOTIENT_GPU_MEMORY_LIMIT from keys of a per-container ConfigMap the scheduler writes before it
// binds (`<prefix>-<container index>`, named by the pod's `runai/shared-gpu-configmap`
// annotation), `envFrom` that ConfigMap's `-evar` companion (optional), and the interposer:
// LD_PRELOAD of the library from a read-only hostPath volume, so the memory limit holds.
//
// Pods of other schedulers are allowed untouched; so are pods that share no GPU.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/status.h"

namespace quotient::webhook {

struct AdmissionSettings {
  std::string scheduler_name = "quotient";
  bool gpu_sharing_enabled = true;
  // The node folder holding the interposer, mounted read-only into GPU-sharing containers.
  std::string interposer_host_dir = "/var/lib/quotient/interposer";
  std::string interposer_mount_dir = "/usr/local/quotient/interposer";
  std::string interposer_file = "libquotient_gpu_interposer.so";
};

struct AdmissionRequest {
  std::string uid;
  std::string operation;  // CREATE, UPDATE, ...
  nlohmann::json object;  // the pod
};

// Reads an admission.k8s.io/v1 AdmissionReview; an error names what is missing.
Result<AdmissionRequest> ParseAdmissionReview(std::string_view json);

struct AdmissionResult {
  bool allowed = true;
  std::string message;                             // why not, when refused
  nlohmann::json patch = nlohmann::json::array();  // JSON patch (RFC 6902); empty = none
};

AdmissionResult ReviewPod(const AdmissionRequest& request, const AdmissionSettings& settings);

// Standard base64 (RFC 4648, padded), as JSON patches and caBundles carry bytes.
std::string Base64(std::string_view bytes);

// The AdmissionReview answer for `uid`.
std::string AdmissionReviewResponse(const std::string& uid, const AdmissionResult& result);

}  // namespace quotient::webhook
