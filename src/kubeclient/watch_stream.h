// The body of a Kubernetes watch response: newline-delimited JSON events
// {"type": "ADDED|MODIFIED|DELETED|BOOKMARK|ERROR", "object": {...}}, arriving in arbitrary
// chunks (an event may span reads, a read may hold several events).
//
// LineFramer cuts the byte stream into complete lines; ParseWatchEvent reads one line with
// simdjson, keeping the object's JSON text exactly as sent (for the typed decoders) with its
// metadata read once (RawObject). An ERROR event's object is a metav1.Status: read it with
// ErrorFromStatus (410 Expired/Gone means: relist).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "kubeclient/raw_object.h"

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
  // The "object" member byte for byte, with its metadata (none for ERROR; only the
  // resourceVersion for BOOKMARK).
  RawObject object;
};

// Parses one event line; the error says what is wrong with it.
Result<WatchEvent> ParseWatchEvent(std::string_view line);

}  // namespace quotient::kubeclient
