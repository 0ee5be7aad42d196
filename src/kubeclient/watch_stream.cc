#include "kubeclient/watch_stream.h"

#include <simdjson.h>

namespace quotient::kubeclient {
namespace {

namespace od = simdjson::ondemand;

Result<WatchEvent::Type> TypeOf(std::string_view type) {
  if (type == "ADDED") return WatchEvent::Type::kAdded;
  if (type == "MODIFIED") return WatchEvent::Type::kModified;
  if (type == "DELETED") return WatchEvent::Type::kDeleted;
  if (type == "BOOKMARK") return WatchEvent::Type::kBookmark;
  if (type == "ERROR") return WatchEvent::Type::kError;
  return Result<WatchEvent::Type>::Error("unknown watch event type \"" + std::string(type) + "\"");
}

}  // namespace

void LineFramer::Feed(std::string_view chunk, std::vector<std::string>& lines) {
  pending_.append(chunk);
  size_t start = 0;
  for (size_t nl = pending_.find('\n'); nl != std::string::npos; nl = pending_.find('\n', start)) {
    std::string line = pending_.substr(start, nl - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) lines.push_back(std::move(line));
    start = nl + 1;
  }
  pending_.erase(0, start);
}

Result<WatchEvent> ParseWatchEvent(std::string_view line) {
  using R = Result<WatchEvent>;
  od::parser parser;
  simdjson::padded_string padded(line);
  od::document doc;
  // On-demand parsing is lazy: malformed text shows up as "not a JSON object" here.
  if (parser.iterate(padded).get(doc) != simdjson::SUCCESS) return R::Error("not a JSON object");
  od::object top;
  if (doc.get_object().get(top) != simdjson::SUCCESS) return R::Error("not a JSON object");
  WatchEvent event;
  bool has_type = false;
  bool has_object = false;
  for (auto field : top) {
    std::string_view key;
    if (field.unescaped_key().get(key) != simdjson::SUCCESS) return R::Error("bad key");
    if (key == "type") {
      std::string_view type;
      if (field.value().get_string().get(type) != simdjson::SUCCESS) {
        return R::Error("type: expected a string");
      }
      Result<WatchEvent::Type> t = TypeOf(type);
      if (!t.ok()) return t.status();
      event.type = *t;
      has_type = true;
    } else if (key == "object") {
      od::object object;
      std::string_view raw;
      if (field.value().get_object().get(object) != simdjson::SUCCESS ||
          object.raw_json().get(raw) != simdjson::SUCCESS) {
        return R::Error("object: expected a JSON object");
      }
      event.object.json = std::string(raw);
      has_object = true;
    }
  }
  if (!has_type) return R::Error("missing type");
  if (!has_object) return R::Error("missing object");
  if (event.type == WatchEvent::Type::kError) return event;
  Result<RawObject> object = ReadObjectWithoutName(event.object.json);
  if (!object.ok()) return object.status();
  event.object = std::move(object).value();
  return event;
}

}  // namespace quotient::kubeclient
