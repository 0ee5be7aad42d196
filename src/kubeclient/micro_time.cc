#include "kubeclient/micro_time.h"

#include "core/time_text.h"

namespace quotient::kubeclient {

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  auto micros = std::chrono::floor<std::chrono::microseconds>(t);
  auto seconds = std::chrono::floor<std::chrono::seconds>(micros);
  std::string text = core::FormatRfc3339(seconds);  // "...:05Z"
  std::string fraction = std::to_string((micros - seconds).count());
  text.pop_back();
  return text + "." + std::string(6 - fraction.size(), '0') + fraction + "Z";
}

}  // namespace quotient::kubeclient
