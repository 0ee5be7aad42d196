// Diagnostic: one message about the input, naming where it came from, the object and the field.
//
// Errors make the input unusable (an unreadable file, a document that is not YAML/JSON) and end
// the run with exit code 1. Warnings describe an object that was skipped or made unschedulable;
// the run goes on without it.
#pragma once

#include <string>

namespace quotient::core {

struct Diagnostic {
  enum class Severity { kWarning, kError };

  Severity severity = Severity::kWarning;
  std::string source;  // file name, "-" for standard input
  std::string object;  // "Pod team-a/train-0", empty when about the file as a whole
  std::string field;   // "spec.containers[0].resources.requests.cpu", may be empty
  std::string message;

  // "cluster.yaml: Pod team-a/train-0: spec.containers[0]...: not a quantity (...)"
  std::string ToString() const {
    std::string out = source.empty() ? std::string() : source + ": ";
    if (!object.empty()) out += object + ": ";
    if (!field.empty()) out += field + ": ";
    out += message;
    return out;
  }
};

}  // namespace quotient::core
