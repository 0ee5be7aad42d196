// Resource vectors: what a pod requests and what a node offers, in fixed-point base units.
//
// ResourceVector keeps the resources every cycle touches as named fields and everything else
// (extended resources, MIG profiles such as nvidia.com/mig-1g.10gb) in a small vector sorted by
// name, so iteration order is deterministic. ShareVector is the three-resource view that fair
// share works on (KAI divides exactly GPU, CPU and memory).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/quantity.h"

namespace quotient::core {

// Well-known resource names.
inline constexpr std::string_view kCpuResource = "cpu";
inline constexpr std::string_view kMemoryResource = "memory";
inline constexpr std::string_view kPodsResource = "pods";
inline constexpr std::string_view kGpuResource = "nvidia.com/gpu";
inline constexpr std::string_view kMigResourcePrefix = "nvidia.com/mig-";

class ResourceVector {
 public:
  Quantity cpu_milli;
  Quantity memory_bytes;
  Quantity gpu_milli;       // whole devices from nvidia.com/gpu, times 1000
  Quantity gpu_memory_mib;  // GPU memory (requested through the gpu-memory annotation)
  Quantity pods_milli;      // the "pods" resource, in milli-units like other counts

  // Extended resources (MIG profiles included) in milli-units, sorted by name, no zero entries.
  const std::vector<std::pair<std::string, Quantity>>& scalars() const { return scalars_; }
  Quantity Scalar(std::string_view name) const;
  void SetScalar(std::string_view name, Quantity amount);
  void AddScalar(std::string_view name, Quantity amount);

  ResourceVector& operator+=(const ResourceVector& other);
  ResourceVector& operator-=(const ResourceVector& other);
  // Component-wise max (used for "largest init container").
  static ResourceVector Max(const ResourceVector& a, const ResourceVector& b);
  // Whether every component of *this is <= the same component of `capacity`.
  bool FitsIn(const ResourceVector& capacity) const;

  bool operator==(const ResourceVector&) const = default;

 private:
  std::vector<std::pair<std::string, Quantity>> scalars_;
};

// The resources fair share divides, in KAI's order of reporting.
enum class ShareResource : int { kGpu = 0, kCpu = 1, kMemory = 2 };
inline constexpr std::array<ShareResource, 3> kShareResources = {
    ShareResource::kGpu, ShareResource::kCpu, ShareResource::kMemory};
std::string_view ShareResourceName(ShareResource r);

// The unit fair share rounds to in the over-quota phase ("whole units"): one GPU, one millicore,
// one byte, expressed in each resource's base unit.
Quantity WholeUnit(ShareResource r);

// GPU in milli-GPUs, CPU in millicores, memory in bytes.
template <typename T>
class PerResource {
 public:
  PerResource() = default;
  PerResource(T gpu, T cpu, T memory) : values_{gpu, cpu, memory} {}
  T& operator[](ShareResource r) { return values_[static_cast<size_t>(r)]; }
  const T& operator[](ShareResource r) const { return values_[static_cast<size_t>(r)]; }
  bool operator==(const PerResource&) const = default;

 private:
  std::array<T, 3> values_{};
};

using ShareVector = PerResource<Quantity>;

ShareVector operator+(const ShareVector& a, const ShareVector& b);
ShareVector operator-(const ShareVector& a, const ShareVector& b);
ShareVector& operator+=(ShareVector& a, const ShareVector& b);
ShareVector& operator-=(ShareVector& a, const ShareVector& b);
// a <= b in every resource.
bool AllLessEqual(const ShareVector& a, const ShareVector& b);
// a < b in every resource (KAI's ResourceQuantities.Less).
bool AllLess(const ShareVector& a, const ShareVector& b);

}  // namespace quotient::core
