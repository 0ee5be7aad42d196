// The webhook's serving certificate, read from PEM files and read again when they change:
// cert-manager and the chart's Secret both renew certificates in place (a Secret mount is swapped
// atomically), and the API server must not see an expired certificate just because the process
// has been up longer than it lives.
//
// Thread safety: Load and Install may run at once from any thread (handshakes happen on the
// server's workers); the current pair is swapped under a mutex.
#pragma once

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/status.h"

namespace quotient::webhook {

class TlsCertificate {
 public:
  // `certificate_file` holds the leaf first, then any intermediates; `key_file` its private key.
  TlsCertificate(std::string certificate_file, std::string key_file);
  ~TlsCertificate();
  TlsCertificate(const TlsCertificate&) = delete;
  TlsCertificate& operator=(const TlsCertificate&) = delete;

  // Reads both files now; an error names the file and what OpenSSL said. A pair that does not
  // match (key of another certificate) is refused.
  Status Load();

  // Installs the current pair on one connection, first re-reading the files when their
  // modification time or size changed since the last read. A renewal that does not read (a
  // half-written file) keeps the previous pair and is reported once per change.
  bool Install(SSL* ssl);

  // Makes `context` ask this object for its certificate on every handshake.
  void AttachTo(SSL_CTX* context);

  // How many times new files were taken (the first Load counts); for tests and logs.
  int loads() const;

 private:
  struct Pair;
  struct FileStamp {
    std::chrono::nanoseconds modified{0};
    long long size = -1;
    bool operator==(const FileStamp&) const = default;
  };
  static FileStamp Stamp(const std::string& path);
  Status ReadLocked();

  std::string certificate_file_;
  std::string key_file_;
  mutable std::mutex mu_;
  std::shared_ptr<Pair> current_;
  FileStamp certificate_stamp_;
  FileStamp key_stamp_;
  // The last renewal that did not read, so it is reported once, not on every handshake.
  FileStamp rejected_certificate_stamp_;
  FileStamp rejected_key_stamp_;
  int loads_ = 0;
};

}  // namespace quotient::webhook
