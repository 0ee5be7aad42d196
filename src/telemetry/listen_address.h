// The listen-address flag in KAI's (and Go's net.Listen) "host:port" form, read once and turned
// into civetweb's `listening_ports` syntax. ":8080" listens on every IPv4 interface,
// "127.0.0.1:8080" on one address, "[::1]:8080" on an IPv6 one; port 0 asks the kernel for a
// free port (tests). Host names are not resolved: civetweb binds numeric addresses only.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace quotient::telemetry {

struct ListenAddress {
  std::string host;  // empty: every interface; IPv6 kept in brackets, "[::1]"
  int port = 0;      // 0..65535; 0 = ephemeral
};

// The error names the flag value and what is wrong with it.
Result<ListenAddress> ParseListenAddress(std::string_view text);

// civetweb's spelling: "8080", "127.0.0.1:8080", "[::1]:8080".
std::string CivetwebListeningPort(const ListenAddress& address);

}  // namespace quotient::telemetry
