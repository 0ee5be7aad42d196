#include "core/resources.h"

#include <algorithm>

namespace quotient::core {
namespace {

auto FindScalar(std::vector<std::pair<std::string, Quantity>>& v, std::string_view name) {
  return std::lower_bound(v.begin(), v.end(), name,
                          [](const auto& entry, std::string_view n) { return entry.first < n; });
}

}  // namespace

Quantity ResourceVector::Scalar(std::string_view name) const {
  auto it = std::lower_bound(scalars_.begin(), scalars_.end(), name,
                             [](const auto& entry, std::string_view n) { return entry.first < n; });
  return (it != scalars_.end() && it->first == name) ? it->second : Quantity::Zero();
}

void ResourceVector::SetScalar(std::string_view name, Quantity amount) {
  auto it = FindScalar(scalars_, name);
  const bool present = it != scalars_.end() && it->first == name;
  if (amount.is_zero()) {
    if (present) scalars_.erase(it);
    return;
  }
  if (present) {
    it->second = amount;
  } else {
    scalars_.insert(it, {std::string(name), amount});
  }
}

void ResourceVector::AddScalar(std::string_view name, Quantity amount) {
  SetScalar(name, Scalar(name) + amount);
}

ResourceVector& ResourceVector::operator+=(const ResourceVector& other) {
  cpu_milli += other.cpu_milli;
  memory_bytes += other.memory_bytes;
  gpu_milli += other.gpu_milli;
  gpu_memory_mib += other.gpu_memory_mib;
  pods_milli += other.pods_milli;
  for (const auto& [name, amount] : other.scalars_) AddScalar(name, amount);
  return *this;
}

ResourceVector& ResourceVector::operator-=(const ResourceVector& other) {
  cpu_milli -= other.cpu_milli;
  memory_bytes -= other.memory_bytes;
  gpu_milli -= other.gpu_milli;
  gpu_memory_mib -= other.gpu_memory_mib;
  pods_milli -= other.pods_milli;
  for (const auto& [name, amount] : other.scalars_) AddScalar(name, -amount);
  return *this;
}

ResourceVector ResourceVector::Max(const ResourceVector& a, const ResourceVector& b) {
  ResourceVector out = a;
  out.cpu_milli = core::Max(a.cpu_milli, b.cpu_milli);
  out.memory_bytes = core::Max(a.memory_bytes, b.memory_bytes);
  out.gpu_milli = core::Max(a.gpu_milli, b.gpu_milli);
  out.gpu_memory_mib = core::Max(a.gpu_memory_mib, b.gpu_memory_mib);
  out.pods_milli = core::Max(a.pods_milli, b.pods_milli);
  for (const auto& [name, amount] : b.scalars_) {
    out.SetScalar(name, core::Max(out.Scalar(name), amount));
  }
  return out;
}

bool ResourceVector::FitsIn(const ResourceVector& capacity) const {
  if (cpu_milli > capacity.cpu_milli || memory_bytes > capacity.memory_bytes ||
      gpu_milli > capacity.gpu_milli || gpu_memory_mib > capacity.gpu_memory_mib ||
      pods_milli > capacity.pods_milli) {
    return false;
  }
  for (const auto& [name, amount] : scalars_) {
    if (amount > capacity.Scalar(name)) return false;
  }
  return true;
}

std::string_view ShareResourceName(ShareResource r) {
  switch (r) {
    case ShareResource::kGpu:
      return "gpu";
    case ShareResource::kCpu:
      return "cpu";
    case ShareResource::kMemory:
      return "memory";
  }
  return "unknown";
}

Quantity WholeUnit(ShareResource r) {
  return r == ShareResource::kGpu ? Quantity(1000) : Quantity(1);
}

ShareVector operator+(const ShareVector& a, const ShareVector& b) {
  ShareVector out = a;
  out += b;
  return out;
}
ShareVector operator-(const ShareVector& a, const ShareVector& b) {
  ShareVector out = a;
  out -= b;
  return out;
}
ShareVector& operator+=(ShareVector& a, const ShareVector& b) {
  for (ShareResource r : kShareResources) a[r] += b[r];
  return a;
}
ShareVector& operator-=(ShareVector& a, const ShareVector& b) {
  for (ShareResource r : kShareResources) a[r] -= b[r];
  return a;
}
bool AllLessEqual(const ShareVector& a, const ShareVector& b) {
  for (ShareResource r : kShareResources) {
    if (a[r] > b[r]) return false;
  }
  return true;
}
bool AllLess(const ShareVector& a, const ShareVector& b) {
  for (ShareResource r : kShareResources) {
    if (!(a[r] < b[r])) return false;
  }
  return true;
}

}  // namespace quotient::core
