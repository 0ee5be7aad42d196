#include "telemetry/logging.h"

#include <gtest/gtest.h>
#include <spdlog/details/log_msg.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "telemetry/json_log_formatter.h"

namespace quotient::telemetry {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(JsonLogs, EachRecordIsOneParseableLineWithTheMessageEscaped) {
  std::ostringstream out;
  auto logger = MakeLogger("json", "info", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  ASSERT_TRUE(logger.ok()) << logger.message();
  const std::string tricky = "pod \"a/b\" failed:\nline two\twith a tab and a \\ backslash";
  (*logger)->info("{}", tricky);
  (*logger)->warn("second");

  std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 2u) << out.str();  // the newline in the message did not split it
  nlohmann::json first = nlohmann::json::parse(lines[0]);
  EXPECT_EQ(first["msg"], tricky);
  EXPECT_EQ(first["level"], "info");
  EXPECT_EQ(first["logger"], "quotient");
  EXPECT_TRUE(first["ts"].is_string());
  EXPECT_EQ(nlohmann::json::parse(lines[1])["level"], "warn");
}

TEST(JsonLogs, TimestampIsRfc3339UtcWithMilliseconds) {
  // 2024-02-29T12:34:56.789Z is 1709210096 s + 789 ms after the epoch.
  auto time = std::chrono::system_clock::time_point(std::chrono::milliseconds(1709210096789));
  EXPECT_EQ(FormatRfc3339Millis(time), "2024-02-29T12:34:56.789Z");

  JsonLogFormatter formatter;
  spdlog::details::log_msg message(time, spdlog::source_loc{}, "quotient", spdlog::level::err,
                                   "boom");
  spdlog::memory_buf_t buffer;
  formatter.format(message, buffer);
  nlohmann::json line = nlohmann::json::parse(std::string(buffer.data(), buffer.size()));
  EXPECT_EQ(line["ts"], "2024-02-29T12:34:56.789Z");
  EXPECT_EQ(line["level"], "error");
  EXPECT_EQ(line["msg"], "boom");
}

TEST(JsonLogs, BytesThatAreNotUtf8DoNotBreakTheLine) {
  std::ostringstream out;
  auto logger = MakeLogger("json", "info", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  ASSERT_TRUE(logger.ok());
  (*logger)->info("bad byte \xff here");
  nlohmann::json line = nlohmann::json::parse(Lines(out.str()).at(0));
  EXPECT_EQ(line["msg"], "bad byte \xEF\xBF\xBD here");  // U+FFFD
}

TEST(TextLogs, LineHasTimeLevelAndMessage) {
  std::ostringstream out;
  auto logger = MakeLogger("text", "debug", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  ASSERT_TRUE(logger.ok());
  (*logger)->debug("hello {}", 42);
  std::string line = Lines(out.str()).at(0);
  // "YYYY-MM-DDTHH:MM:SS.mmmZ debug hello 42"
  ASSERT_GE(line.size(), 24u);
  EXPECT_EQ(line[10], 'T');
  EXPECT_EQ(line[23], 'Z');
  EXPECT_EQ(line.substr(24), " debug hello 42");
}

TEST(LogLevels, MessagesBelowTheLevelAreDropped) {
  std::ostringstream out;
  auto logger = MakeLogger("json", "warn", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  ASSERT_TRUE(logger.ok());
  (*logger)->info("dropped");
  (*logger)->error("kept");
  std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["msg"], "kept");
}

TEST(LogLevels, EveryFlagValueMapsToItsSpdlogLevel) {
  EXPECT_EQ(*ParseLogLevel("trace"), spdlog::level::trace);
  EXPECT_EQ(*ParseLogLevel("debug"), spdlog::level::debug);
  EXPECT_EQ(*ParseLogLevel("info"), spdlog::level::info);
  EXPECT_EQ(*ParseLogLevel("warn"), spdlog::level::warn);
  EXPECT_EQ(*ParseLogLevel("error"), spdlog::level::err);
}

TEST(ConfigureLogging, UnknownFormatOrLevelIsAnErrorNamingTheValue) {
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(std::cerr);
  Status bad_format = ConfigureLogging("xml", "info", sink);
  EXPECT_FALSE(bad_format.ok());
  EXPECT_NE(bad_format.message().find("\"xml\""), std::string::npos) << bad_format.message();
  Status bad_level = ConfigureLogging("text", "verbose", sink);
  EXPECT_FALSE(bad_level.ok());
  EXPECT_NE(bad_level.message().find("\"verbose\""), std::string::npos) << bad_level.message();
  EXPECT_FALSE(ConfigureLogging("JSON", "info").ok());  // values are lower case
}

TEST(ConfigureLogging, InstallsTheDefaultLogger) {
  std::shared_ptr<spdlog::logger> previous = spdlog::default_logger();
  std::ostringstream out;
  ASSERT_TRUE(
      ConfigureLogging("json", "info", std::make_shared<spdlog::sinks::ostream_sink_mt>(out)).ok());
  spdlog::info("through the default logger");
  spdlog::set_default_logger(previous);
  std::vector<std::string> lines = Lines(out.str());
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(lines[0])["msg"], "through the default logger");
}

}  // namespace
}  // namespace quotient::telemetry
