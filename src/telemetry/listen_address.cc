#include "telemetry/listen_address.h"

#include <charconv>

namespace quotient::telemetry {
namespace {

constexpr int kMaxPort = 65535;

Result<ListenAddress> Invalid(std::string_view text, std::string_view why) {
  return Result<ListenAddress>::Error("listen address \"" + std::string(text) +
                                      "\": " + std::string(why));
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  // The port follows the last colon; an IPv6 host must be bracketed so that its own colons are
  // not mistaken for the separator (as Go's net.SplitHostPort requires).
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Invalid(text, "expected host:port, e.g. \":8080\" or \"127.0.0.1:8080\"");
  }
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  if (host.find(':') != std::string_view::npos &&
      (host.size() < 2 || host.front() != '[' || host.back() != ']')) {
    return Invalid(text, "an IPv6 host must be in brackets, e.g. \"[::1]:8080\"");
  }
  ListenAddress address;
  address.host = std::string(host);
  const char* end = port_text.data() + port_text.size();
  auto [parsed_to, error] = std::from_chars(port_text.data(), end, address.port);
  if (port_text.empty() || error != std::errc() || parsed_to != end || address.port < 0 ||
      address.port > kMaxPort) {
    return Invalid(text, "port must be a number from 0 to 65535");
  }
  return address;
}

std::string CivetwebListeningPort(const ListenAddress& address) {
  std::string port = std::to_string(address.port);
  return address.host.empty() ? port : address.host + ":" + port;
}

}  // namespace quotient::telemetry
