#include "interposer/hook_support.h"

#include "interposer/symbol_table.h"

namespace quotient::interposer {

std::optional<int> current_device() {
  const auto get_device = real<CUresult (*)(CUdevice*)>(Helper::cuCtxGetDevice);
  CUdevice device = -1;
  if (get_device == nullptr || get_device(&device) != CUDA_SUCCESS) return std::nullopt;
  return device;
}

}  // namespace quotient::interposer
