// A Transport for unit tests: answers requests from a script, in order, and records what was
// sent. Streams deliver their scripted body in the chunks given.
#pragma once

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "kubeclient/transport.h"

namespace quotient::kubeclient::testing {

struct ScriptedAnswer {
  ApiResult<HttpResponse> response = HttpResponse{};
  std::vector<std::string> chunks;  // for Stream: body pieces delivered before returning
};

class ScriptedTransport : public Transport {
 public:
  void Answer(int32_t code, std::string body, int64_t retry_after = 0) {
    answers_.push_back({HttpResponse{code, std::move(body), retry_after}, {}});
  }
  void Fail(std::string message) { answers_.push_back({TransportError(std::move(message)), {}}); }
  void StreamAnswer(std::vector<std::string> chunks) {
    answers_.push_back({HttpResponse{200, "", 0}, std::move(chunks)});
  }

  ApiResult<HttpResponse> Do(const HttpRequest& request) override {
    requests.push_back(request);
    return Next().response;
  }
  ApiResult<HttpResponse> Stream(const HttpRequest& request,
                                 const std::function<bool(std::string_view)>& on_data,
                                 const std::function<bool()>&) override {
    requests.push_back(request);
    ScriptedAnswer answer = Next();
    for (const std::string& chunk : answer.chunks) {
      if (!on_data(chunk)) break;
    }
    return answer.response;
  }

  std::vector<HttpRequest> requests;
  size_t remaining() const { return answers_.size(); }
  // Called when a request finds the script empty (a test stops its reflector here).
  std::function<void()> on_exhausted;

 private:
  ScriptedAnswer Next() {
    if (answers_.empty()) {
      if (on_exhausted) on_exhausted();
      return {TransportError("script exhausted"), {}};
    }
    ScriptedAnswer a = std::move(answers_.front());
    answers_.pop_front();
    return a;
  }
  std::deque<ScriptedAnswer> answers_;
};

}  // namespace quotient::kubeclient::testing
