#include "webhook/test_certificates.h"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace quotient::webhook::testing {

namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "MakeTestPki: %s failed\n", what);
    std::abort();
  }
}

EVP_PKEY* NewKey() {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  Check(key != nullptr, "EVP_EC_gen");
  return key;
}

void AddExtension(X509* certificate, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, issuer, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value.c_str());
  Check(extension != nullptr, "X509V3_EXT_conf_nid");
  Check(X509_add_ext(certificate, extension, -1) == 1, "X509_add_ext");
  X509_EXTENSION_free(extension);
}

X509* NewCertificate(const std::string& common_name, EVP_PKEY* key, long serial, int valid_days) {
  X509* certificate = X509_new();
  Check(certificate != nullptr, "X509_new");
  X509_set_version(certificate, 2);
  ASN1_INTEGER_set(X509_get_serialNumber(certificate), serial);
  X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
  X509_gmtime_adj(X509_getm_notAfter(certificate), 86400L * valid_days);
  X509_set_pubkey(certificate, key);
  X509_NAME* name = X509_get_subject_name(certificate);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  return certificate;
}

std::string Pem(X509* certificate) {
  BIO* bio = BIO_new(BIO_s_mem());
  Check(PEM_write_bio_X509(bio, certificate) == 1, "PEM_write_bio_X509");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(bio);
  return text;
}

std::string Pem(EVP_PKEY* key) {
  BIO* bio = BIO_new(BIO_s_mem());
  Check(PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "PEM_write_bio_PrivateKey");
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  std::string text(data, static_cast<size_t>(size));
  BIO_free(bio);
  return text;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  Check(out.good(), "writing a PEM file");
}

}  // namespace

TestPki MakeTestPki(const std::string& folder, const std::vector<std::string>& dns_names,
                    const std::vector<std::string>& ip_addresses, int valid_days,
                    const std::string& ca_name) {
  EVP_PKEY* ca_key = NewKey();
  X509* ca = NewCertificate(ca_name, ca_key, 1, valid_days);
  X509_set_issuer_name(ca, X509_get_subject_name(ca));
  AddExtension(ca, ca, NID_basic_constraints, "critical,CA:TRUE");
  AddExtension(ca, ca, NID_key_usage, "critical,keyCertSign,cRLSign");
  AddExtension(ca, ca, NID_subject_key_identifier, "hash");
  Check(X509_sign(ca, ca_key, EVP_sha256()) > 0, "X509_sign (CA)");

  EVP_PKEY* server_key = NewKey();
  X509* server = NewCertificate("quotient-webhook", server_key, 2, valid_days);
  X509_set_issuer_name(server, X509_get_subject_name(ca));
  std::string names;
  for (const std::string& dns : dns_names) names += (names.empty() ? "" : ",") + ("DNS:" + dns);
  for (const std::string& ip : ip_addresses) names += (names.empty() ? "" : ",") + ("IP:" + ip);
  AddExtension(server, ca, NID_basic_constraints, "critical,CA:FALSE");
  AddExtension(server, ca, NID_ext_key_usage, "serverAuth");
  if (!names.empty()) AddExtension(server, ca, NID_subject_alt_name, names);
  Check(X509_sign(server, ca_key, EVP_sha256()) > 0, "X509_sign (server)");

  TestPki pki;
  pki.ca_file = folder + "/ca.pem";
  pki.certificate_file = folder + "/tls.crt";
  pki.key_file = folder + "/tls.key";
  pki.ca_pem = Pem(ca);
  Write(pki.ca_file, pki.ca_pem);
  Write(pki.certificate_file, Pem(server));
  Write(pki.key_file, Pem(server_key));
  X509_free(server);
  X509_free(ca);
  EVP_PKEY_free(server_key);
  EVP_PKEY_free(ca_key);
  return pki;
}

}  // namespace quotient::webhook::testing
