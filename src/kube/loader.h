// Reading Kubernetes manifests (YAML or JSON, as `kubectl get -o yaml|json` prints them) into
// core::ClusterObjects.
//
// Supported kinds: v1 Node, v1 Pod, scheduling.run.ai/v2 Queue, scheduling.run.ai/v2alpha2
// PodGroup, scheduling.k8s.io/v1 PriorityClass, and `List` / `*List` wrappers around them (items
// of a typed list such as PodList may omit kind and apiVersion). Everything else is skipped with
// a warning. A text whose first non-space character is '{' or '[' is read as JSON (simdjson),
// anything else as a YAML stream of `---`-separated documents (yaml-cpp).
//
// Nothing here throws. What the input gets wrong is reported as Diagnostics: an error for input
// that cannot be read at all (a missing file, a syntax error: the whole text is dropped), a
// warning for an object that is skipped or that arrives with `problems`. Output order is input
// order. This file holds all of the kube library's file I/O.
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "core/diagnostic.h"
#include "core/objects.h"

namespace quotient::kube {

struct LoadResult {
  core::ClusterObjects objects;
  std::vector<core::Diagnostic> diagnostics;

  // Whether any diagnostic is an error (the run should end with exit code 1).
  bool HasErrors() const;
};

// Each path is a file, a directory (every *.yaml, *.yml and *.json file directly inside it,
// sorted by name; not recursive) or "-" for `stdin_stream`. A missing or unreadable path is an
// error diagnostic naming it; the other paths are still read.
LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream);

// Reads a whole file (the kube library's only way of reading one); the error says why not.
Result<std::string> ReadTextFile(const std::string& path);

// Decodes one text; `source` names it in every object and diagnostic. Appends to `out`.
void DecodeManifestText(std::string_view text, std::string_view source, LoadResult& out);

}  // namespace quotient::kube
