#include "telemetry/listen_address.h"

#include <gtest/gtest.h>

namespace quotient::telemetry {
namespace {

TEST(ParseListenAddress, EmptyHostListensOnEveryInterface) {
  Result<ListenAddress> address = ParseListenAddress(":8080");
  ASSERT_TRUE(address.ok()) << address.message();
  EXPECT_EQ(address->host, "");
  EXPECT_EQ(address->port, 8080);
  EXPECT_EQ(CivetwebListeningPort(*address), "8080");
}

TEST(ParseListenAddress, HostAndPortKeepTheHost) {
  Result<ListenAddress> address = ParseListenAddress("127.0.0.1:9090");
  ASSERT_TRUE(address.ok()) << address.message();
  EXPECT_EQ(CivetwebListeningPort(*address), "127.0.0.1:9090");
}

TEST(ParseListenAddress, PortZeroAsksForAnEphemeralPort) {
  Result<ListenAddress> address = ParseListenAddress(":0");
  ASSERT_TRUE(address.ok()) << address.message();
  EXPECT_EQ(address->port, 0);
}

TEST(ParseListenAddress, BracketedIpv6HostKeepsItsColons) {
  Result<ListenAddress> address = ParseListenAddress("[::1]:8080");
  ASSERT_TRUE(address.ok()) << address.message();
  EXPECT_EQ(address->host, "[::1]");
  EXPECT_EQ(CivetwebListeningPort(*address), "[::1]:8080");
}

TEST(ParseListenAddress, MalformedValuesAreErrorsNamingTheValue) {
  for (const char* bad : {"8080", "", ":", ":http", ":65536", ":-1", "::1:8080", "host:80x"}) {
    Result<ListenAddress> address = ParseListenAddress(bad);
    EXPECT_FALSE(address.ok()) << bad;
    EXPECT_NE(address.message().find(std::string("\"") + bad + "\""), std::string::npos)
        << address.message();
  }
}

}  // namespace
}  // namespace quotient::telemetry
