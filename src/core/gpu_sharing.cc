#include "core/gpu_sharing.h"

#include <cctype>

#include "common/int128.h"

namespace quotient::core {
namespace {

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

// A positive integer of at most 9 digits.
std::optional<int64_t> ParsePositiveInt(std::string_view s) {
  if (!IsDigits(s) || s.size() > 9) return std::nullopt;
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  if (v <= 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<int64_t> MigGpuUnits(std::string_view resource_name) {
  if (resource_name.substr(0, kMigResourcePrefix.size()) != kMigResourcePrefix) {
    return std::nullopt;
  }
  std::string_view profile = resource_name.substr(kMigResourcePrefix.size());  // "3g.40gb"
  const size_t g = profile.find("g.");
  if (g == std::string_view::npos) return std::nullopt;
  std::string_view mem = profile.substr(g + 2);
  if (mem.size() < 3 || mem.substr(mem.size() - 2) != "gb") return std::nullopt;
  if (!ParsePositiveInt(mem.substr(0, mem.size() - 2))) return std::nullopt;
  return ParsePositiveInt(profile.substr(0, g));
}

Quantity MemoryToPortionMilli(Quantity memory_mib, int64_t gpu_memory_mib) {
  if (gpu_memory_mib <= 0) return Quantity(1000);
  // ceil(memory * 100 / gpu_memory) hundredths, then x10 to milli.
  const Int128 numerator = static_cast<Int128>(memory_mib.value()) * 100;
  const Int128 hundredths = (numerator + gpu_memory_mib - 1) / gpu_memory_mib;
  const Int128 milli = hundredths * 10;
  return Quantity(milli > INT64_MAX ? INT64_MAX : static_cast<int64_t>(milli));
}

Result<GpuSharing> ReadGpuSharing(const PodObject& pod, const ResourceVector& request) {
  using R = Result<GpuSharing>;
  GpuSharing out;
  const Labels& ann = pod.meta.annotations;
  const auto find = [&](std::string_view key) -> const std::string* {
    auto it = ann.find(std::string(key));
    return it == ann.end() ? nullptr : &it->second;
  };
  const std::string* fraction = find(kGpuFractionAnnotation);
  const std::string* memory = find(kGpuMemoryAnnotation);
  const std::string* num_devices = find(kGpuFractionNumDevicesAnnotation);
  if (const std::string* c = find(kGpuFractionContainerAnnotation)) out.container_name = *c;

  // MIG: instances requested as extended resources.
  for (const auto& [name, amount] : request.scalars()) {
    if (std::optional<int64_t> units = MigGpuUnits(name)) {
      out.mig_gpu_units_milli += amount.Times(*units);
    }
  }

  if (fraction && memory) {
    return R::Error("annotations gpu-fraction and gpu-memory cannot be combined");
  }
  if ((fraction || memory) && !request.gpu_milli.is_zero()) {
    return R::Error(std::string("annotation ") + (fraction ? "gpu-fraction" : "gpu-memory") +
                    " cannot be combined with an nvidia.com/gpu request");
  }
  if (num_devices) {
    if (!fraction && !memory) {
      return R::Error("annotation gpu-fraction-num-devices requires gpu-fraction or gpu-memory");
    }
    std::optional<int64_t> n = ParsePositiveInt(*num_devices);
    if (!n) {
      return R::Error("annotation gpu-fraction-num-devices: " + Quote(*num_devices) +
                      " is not a positive integer");
    }
    out.num_devices = *n;
  }
  if (fraction) {
    Result<Quantity> q = ParseQuantity(*fraction, Scale::kMilli, Rounding::kUp);
    // KAI's scheduler accepts (0, 1]; only plain decimals are fractions.
    const bool plain =
        !fraction->empty() && fraction->find_first_not_of("0123456789.") == std::string::npos;
    if (!plain || !q.ok() || q->value() <= 0 || q->value() > 1000) {
      return R::Error("annotation gpu-fraction: " + Quote(*fraction) +
                      " is not a fraction in (0, 1]");
    }
    out.kind = GpuSharing::Kind::kFraction;
    out.portion_milli = *q;
    return out;
  }
  if (memory) {
    std::optional<int64_t> mib = ParsePositiveInt(*memory);
    if (!mib) {
      return R::Error("annotation gpu-memory: " + Quote(*memory) +
                      " is not a positive integer number of MiB");
    }
    out.kind = GpuSharing::Kind::kMemory;
    out.memory_mib = Quantity(*mib);
    return out;
  }
  if (!request.gpu_milli.is_zero()) {
    if (request.gpu_milli.value() % 1000 != 0) {
      return R::Error("nvidia.com/gpu must be a whole number of devices (use gpu-fraction)");
    }
    out.kind = GpuSharing::Kind::kWhole;
    out.whole_devices = request.gpu_milli.value() / 1000;
    return out;
  }
  if (!out.mig_gpu_units_milli.is_zero()) out.kind = GpuSharing::Kind::kMig;
  return out;
}

}  // namespace quotient::core
