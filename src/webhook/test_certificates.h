// A throw-away PKI for tests: a CA and a server certificate it signs, as PEM files, so the
// webhook can serve TLS and a client (or the API server, through caBundle) can verify it.
#pragma once

#include <string>
#include <vector>

namespace quotient::webhook::testing {

struct TestPki {
  std::string ca_file;           // the CA certificate (PEM): a client's trust, a caBundle
  std::string certificate_file;  // the server certificate (PEM)
  std::string key_file;          // its private key (PEM)
  std::string ca_pem;            // the CA certificate's text
};

// Writes ca.pem, tls.crt and tls.key into `folder` (which must exist). The server certificate
// names `dns_names` and `ip_addresses` (e.g. "127.0.0.1") as subject alternative names and lives
// `valid_days`. `ca_name` becomes the CA's common name (two calls with different names make
// PKIs that do not trust each other). Aborts the test program on an OpenSSL failure.
TestPki MakeTestPki(const std::string& folder, const std::vector<std::string>& dns_names,
                    const std::vector<std::string>& ip_addresses, int valid_days = 1,
                    const std::string& ca_name = "quotient test CA");

}  // namespace quotient::webhook::testing
