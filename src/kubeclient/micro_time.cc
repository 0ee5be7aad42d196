#include "kubeclient/micro_time.h"

#include <cstdio>
#include <ctime>

#include "core/time_text.h"

namespace quotient::kubeclient {

std::string FormatMicroTime(std::chrono::system_clock::time_point t) {
  auto micros = std::chrono::duration_cast<std::chrono::microseconds>(t.time_since_epoch());
  auto seconds = std::chrono::floor<std::chrono::seconds>(micros);
  int64_t fraction = (micros - seconds).count();
  std::time_t whole = static_cast<std::time_t>(seconds.count());
  std::tm utc{};
  gmtime_r(&whole, &utc);
  char buffer[96];  // room for any int the format could be given
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%06lldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(fraction));  // NOLINT(runtime/int): printf's type
  return buffer;
}

std::optional<std::chrono::system_clock::time_point> ParseMicroTime(std::string_view text) {
  Result<core::Time> whole = core::ParseRfc3339(text);  // drops the fraction
  if (!whole.ok()) return std::nullopt;
  std::chrono::microseconds fraction{0};
  if (auto dot = text.find('.'); dot != std::string_view::npos) {
    int64_t value = 0;
    int digits = 0;
    for (size_t i = dot + 1; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      if (digits < 6) {
        value = value * 10 + (text[i] - '0');
        ++digits;
      }
    }
    while (digits < 6) {
      value *= 10;
      ++digits;
    }
    fraction = std::chrono::microseconds(value);
  }
  return std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(whole->time_since_epoch() +
                                                                      fraction));
}

}  // namespace quotient::kubeclient
