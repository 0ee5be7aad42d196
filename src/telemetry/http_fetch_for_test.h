// Tests only: one request to an ops server on 127.0.0.1 through libcurl, with what the tests of
// the ops endpoints (telemetry, the scheduler's dashboard) look at.
#pragma once

#include <string>

namespace quotient::telemetry::test_support {

struct HttpAnswer {
  long status = 0;  // NOLINT(runtime/int): libcurl's type; 0 = no answer
  std::string body;
  std::string content_type;
  std::string headers;  // the raw header lines
};

// `method` GET, HEAD (no body read), POST, ...; a 5 s timeout.
HttpAnswer Fetch(int port, const std::string& path, const char* method = "GET");

}  // namespace quotient::telemetry::test_support
