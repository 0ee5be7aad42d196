#include "webhook/tls_certificate.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <array>

namespace quotient::webhook {

struct TlsCertificate::Pair {
  X509* leaf = nullptr;
  STACK_OF(X509) * chain = nullptr;
  EVP_PKEY* key = nullptr;
  Pair() = default;
  Pair(const Pair&) = delete;
  Pair& operator=(const Pair&) = delete;
  ~Pair() {
    X509_free(leaf);
    sk_X509_pop_free(chain, X509_free);
    EVP_PKEY_free(key);
  }
};

namespace {

// OpenSSL's last error as text ("PEM routines::no start line"), emptying its queue.
std::string OpenSslError() {
  std::string text;
  while (const unsigned long code = ERR_get_error()) {
    std::array<char, 256> buffer{};
    ERR_error_string_n(code, buffer.data(), buffer.size());
    if (!text.empty()) text += "; ";
    text += buffer.data();
  }
  return text.empty() ? "unreadable" : text;
}

struct BioCloser {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using Bio = std::unique_ptr<BIO, BioCloser>;

int CertificateCallback(SSL* ssl, void* self) {
  return static_cast<TlsCertificate*>(self)->Install(ssl) ? 1 : 0;
}

}  // namespace

TlsCertificate::TlsCertificate(std::string certificate_file, std::string key_file)
    : certificate_file_(std::move(certificate_file)), key_file_(std::move(key_file)) {}

TlsCertificate::~TlsCertificate() = default;

TlsCertificate::FileStamp TlsCertificate::Stamp(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return {};
  return {
      std::chrono::seconds(info.st_mtim.tv_sec) + std::chrono::nanoseconds(info.st_mtim.tv_nsec),
      static_cast<long long>(info.st_size)};
}

Status TlsCertificate::Load() {
  std::lock_guard lock(mu_);
  return ReadLocked();
}

Status TlsCertificate::ReadLocked() {
  ERR_clear_error();
  const FileStamp certificate_stamp = Stamp(certificate_file_);
  const FileStamp key_stamp = Stamp(key_file_);
  auto pair = std::make_shared<Pair>();
  Bio certificates(BIO_new_file(certificate_file_.c_str(), "r"));
  if (!certificates) return Status::Error(certificate_file_ + ": " + OpenSslError());
  pair->leaf = PEM_read_bio_X509(certificates.get(), nullptr, nullptr, nullptr);
  if (pair->leaf == nullptr) {
    return Status::Error(certificate_file_ + ": no PEM certificate: " + OpenSslError());
  }
  pair->chain = sk_X509_new_null();
  while (X509* intermediate = PEM_read_bio_X509(certificates.get(), nullptr, nullptr, nullptr)) {
    sk_X509_push(pair->chain, intermediate);
  }
  ERR_clear_error();  // the end of the file reads as "no start line"
  Bio key(BIO_new_file(key_file_.c_str(), "r"));
  if (!key) return Status::Error(key_file_ + ": " + OpenSslError());
  pair->key = PEM_read_bio_PrivateKey(key.get(), nullptr, nullptr, nullptr);
  if (pair->key == nullptr) {
    return Status::Error(key_file_ + ": no PEM private key: " + OpenSslError());
  }
  if (X509_check_private_key(pair->leaf, pair->key) != 1) {
    ERR_clear_error();
    return Status::Error(key_file_ + ": the private key is not the key of the certificate in " +
                         certificate_file_);
  }
  current_ = std::move(pair);
  certificate_stamp_ = certificate_stamp;
  key_stamp_ = key_stamp;
  ++loads_;
  return Status::Ok();
}

bool TlsCertificate::Install(SSL* ssl) {
  std::shared_ptr<Pair> pair;
  {
    std::lock_guard lock(mu_);
    const FileStamp certificate_stamp = Stamp(certificate_file_);
    const FileStamp key_stamp = Stamp(key_file_);
    const bool changed = certificate_stamp != certificate_stamp_ || key_stamp != key_stamp_;
    const bool rejected_before =
        certificate_stamp == rejected_certificate_stamp_ && key_stamp == rejected_key_stamp_;
    if (changed && !rejected_before) {
      if (Status read = ReadLocked(); read.ok()) {
        spdlog::info("webhook: serving the renewed certificate from {}", certificate_file_);
      } else {
        // Often a renewal caught half-way (certificate written, key not yet): the old pair
        // serves until the files agree again.
        rejected_certificate_stamp_ = certificate_stamp;
        rejected_key_stamp_ = key_stamp;
        spdlog::warn("webhook: keeping the previous certificate: {}", read.message());
      }
    }
    pair = current_;
  }
  if (!pair) return false;
  // Increments references; the connection keeps the pair alive after a later swap.
  return SSL_use_cert_and_key(ssl, pair->leaf, pair->key, pair->chain, 1) == 1;
}

void TlsCertificate::AttachTo(SSL_CTX* context) {
  SSL_CTX_set_cert_cb(context, &CertificateCallback, this);
}

int TlsCertificate::loads() const {
  std::lock_guard lock(mu_);
  return loads_;
}

}  // namespace quotient::webhook
