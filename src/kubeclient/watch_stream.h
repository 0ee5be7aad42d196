// The body of a Kubernetes watch response: newline-delimited JSON events
// {"type": "ADDED|MODIFIED|DELETED|BOOKMARK|ERROR", "object": {...}}, arriving in arbitrary
// chunks (an event may span reads, a read may hold several events).
//
// LineFramer cuts the byte stream into complete lines; ParseWatchEvent reads one line with
// simdjson, keeping the object's JSON text exactly as sent (for the typed decoders) and pulling
// out what a reflector needs: the object's metadata.resourceVersion, and for ERROR events the
// metav1.Status code, reason and message (410 Expired/Gone means: relist).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quotient::kubeclient {

class LineFramer {
 public:
  // Appends `chunk` and moves every complete line (without its '\n'; a trailing '\r' is dropped,
  // blank lines are skipped) to `lines`.
  void Feed(std::string_view chunk, std::vector<std::string>& lines);
  // Bytes received after the last newline (an incomplete event).
  const std::string& pending() const { return pending_; }

 private:
  std::string pending_;
};

struct WatchEvent {
  enum class Type { kAdded, kModified, kDeleted, kBookmark, kError };
  Type type = Type::kAdded;
  std::string object_json;       // the "object" member, byte for byte
  std::string resource_version;  // object.metadata.resourceVersion ("" for ERROR)
  // ERROR events: the metav1.Status.
  int32_t code = 0;
  std::string reason;
  std::string message;
};

// Parses one event line; the error says what is wrong with it.
Result<WatchEvent> ParseWatchEvent(std::string_view line);

}  // namespace quotient::kubeclient
