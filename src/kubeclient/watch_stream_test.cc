#include "kubeclient/watch_stream.h"

#include <gtest/gtest.h>

#include "kubeclient/api_error.h"

namespace quotient::kubeclient {
namespace {

TEST(LineFramer, PartialLinesWaitForTheirNewline) {
  LineFramer f;
  std::vector<std::string> lines;
  f.Feed("{\"type\":\"ADD", lines);
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(f.pending(), "{\"type\":\"ADD");
  f.Feed("ED\"}\n{\"a\"", lines);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], "{\"type\":\"ADDED\"}");
  EXPECT_EQ(f.pending(), "{\"a\"");
}

TEST(LineFramer, SeveralEventsInOneReadAndCarriageReturns) {
  LineFramer f;
  std::vector<std::string> lines;
  f.Feed("one\r\ntwo\n\nthree\n", lines);
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_TRUE(f.pending().empty());
}

TEST(ParseWatchEvent, KeepsTheObjectTextAndItsResourceVersion) {
  const std::string object =
      R"({"kind":"Pod","metadata":{"name":"p","resourceVersion":"1234"},"spec":{"x":0.10}})";
  Result<WatchEvent> e = ParseWatchEvent(R"({"type":"MODIFIED","object":)" + object + "}");
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->type, WatchEvent::Type::kModified);
  EXPECT_EQ(e->object.json, object);  // byte for byte: 0.10 stays 0.10
  EXPECT_EQ(e->object.resource_version, "1234");
  EXPECT_EQ(e->object.name, "p");
}

TEST(ParseWatchEvent, BookmarksCarryOnlyTheVersion) {
  Result<WatchEvent> e = ParseWatchEvent(
      R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"99"}}})");
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->type, WatchEvent::Type::kBookmark);
  EXPECT_EQ(e->object.resource_version, "99");
  EXPECT_EQ(e->object.name, "");
}

TEST(ParseWatchEvent, ErrorEventsCarryTheStatus) {
  Result<WatchEvent> e = ParseWatchEvent(
      R"json({"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure",)json"
      R"json("message":"too old resource version: 5 (10)","reason":"Expired","code":410}})json");
  ASSERT_TRUE(e.ok()) << e.message();
  EXPECT_EQ(e->type, WatchEvent::Type::kError);
  ApiError error = ErrorFromStatus(e->object.json);
  EXPECT_EQ(error.http_code, 410);
  EXPECT_EQ(error.reason, ApiReason::kGone);
  EXPECT_EQ(error.status_reason, "Expired");
  EXPECT_EQ(error.message, "too old resource version: 5 (10)");
}

TEST(ParseWatchEvent, BadLinesAreErrorsNotCrashes) {
  EXPECT_EQ(ParseWatchEvent("not json").message(), "not a JSON object");
  EXPECT_EQ(ParseWatchEvent("[1]").message(), "not a JSON object");
  EXPECT_EQ(ParseWatchEvent(R"({"object":{}})").message(), "missing type");
  EXPECT_EQ(ParseWatchEvent(R"({"type":"ADDED"})").message(), "missing object");
  EXPECT_EQ(ParseWatchEvent(R"({"type":"RENAMED","object":{}})").message(),
            "unknown watch event type \"RENAMED\"");
  EXPECT_EQ(ParseWatchEvent(R"({"type":"ADDED","object":3})").message(),
            "object: expected a JSON object");
  EXPECT_EQ(ParseWatchEvent(R"({"type":"ADDED","object":{"kind":"Pod"}})").message(),
            "object: metadata: missing or not an object");
  // A line cut short (a framing bug upstream) is an error too.
  EXPECT_FALSE(ParseWatchEvent(R"({"type":"ADDED","object":{"metadata":{"resourceVer)").ok());
}

}  // namespace
}  // namespace quotient::kubeclient
