#include "kube/loader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <utility>

#include "kube/codecs.h"
#include "kube/field_decoder.h"
#include "kube/value.h"

namespace quotient::kube {
namespace {

namespace fs = std::filesystem;

// Lists nested deeper than this are not unwrapped (a List of Lists is already unusual).
constexpr int kMaxListDepth = 4;

struct KindEntry {
  std::string_view kind;
  std::string_view api_version;
};
constexpr KindEntry kSupportedKinds[] = {
    {"Node", "v1"},
    {"Pod", "v1"},
    {"Queue", "scheduling.run.ai/v2"},
    {"PodGroup", "scheduling.run.ai/v2alpha2"},
    {"PriorityClass", "scheduling.k8s.io/v1"},
    {"PodDisruptionBudget", "policy/v1"},
};

void AddError(LoadResult& out, std::string_view source, std::string message) {
  core::Diagnostic d;
  d.severity = core::Diagnostic::Severity::kError;
  d.source = std::string(source);
  d.message = std::move(message);
  out.diagnostics.push_back(std::move(d));
}

// A string field of a document, or "" when absent or not a string.
std::string StringField(const Value& doc, std::string_view key) {
  const Value* v = doc.Find(key);
  return v != nullptr && v->type() == Value::Type::kString ? v->text() : std::string();
}

// "Deployment ns/name" (or less, when the document lacks them), for messages about a document.
std::string DescribeDocument(const Value& doc, const std::string& kind) {
  const Value* metadata = doc.Find("metadata");
  if (metadata == nullptr) return kind;
  const std::string ns = StringField(*metadata, "namespace");
  const std::string name = StringField(*metadata, "name");
  if (name.empty()) return kind;
  const std::string key = ns.empty() ? name : ns + "/" + name;
  return kind.empty() ? key : kind + " " + key;
}

void AppendObject(const Value& doc, std::string_view kind, const DecodeContext& context,
                  core::ClusterObjects& out) {
  if (kind == "Node") {
    if (auto node = DecodeNode(doc, context)) out.nodes.push_back(std::move(*node));
  } else if (kind == "Pod") {
    if (auto pod = DecodePod(doc, context)) out.pods.push_back(std::move(*pod));
  } else if (kind == "Queue") {
    if (auto queue = DecodeQueue(doc, context)) out.queues.push_back(std::move(*queue));
  } else if (kind == "PodGroup") {
    if (auto group = DecodePodGroup(doc, context)) out.pod_groups.push_back(std::move(*group));
  } else if (kind == "PriorityClass") {
    if (auto pc = DecodePriorityClass(doc, context)) out.priority_classes.push_back(std::move(*pc));
  } else if (kind == "PodDisruptionBudget") {
    if (auto pdb = DecodePodDisruptionBudget(doc, context)) {
      out.pod_disruption_budgets.push_back(std::move(*pdb));
    }
  }
}

void DecodeDocument(const Value& doc, const DecodeContext& context, int list_depth,
                    std::string_view default_kind, std::string_view default_api_version,
                    core::ClusterObjects& out);

// `kind: List` or a typed list (`PodList`): decode each item. Items of a typed list inherit the
// element kind and the list's apiVersion when they omit them, as the API server's lists do.
void DecodeList(const Value& doc, const std::string& kind, const std::string& api_version,
                const DecodeContext& context, int list_depth, core::ClusterObjects& out) {
  if (list_depth >= kMaxListDepth) {
    AddWarning(context.diagnostics, context.source, kind, "lists nested too deep; skipped");
    return;
  }
  const Value* items = doc.Find("items");
  if (items == nullptr || items->is_null()) return;
  if (!items->is_sequence()) {
    AddWarning(context.diagnostics, context.source, kind, "items is not a list; skipped");
    return;
  }
  const std::string item_kind = kind == "List" ? std::string() : kind.substr(0, kind.size() - 4);
  const std::string item_api_version = kind == "List" ? std::string() : api_version;
  for (const Value& item : items->items()) {
    DecodeDocument(item, context, list_depth + 1, item_kind, item_api_version, out);
  }
}

void DecodeDocument(const Value& doc, const DecodeContext& context, int list_depth,
                    std::string_view default_kind, std::string_view default_api_version,
                    core::ClusterObjects& out) {
  if (!doc.is_mapping()) {
    AddWarning(context.diagnostics, context.source, "",
               "document is a " + std::string(Value::TypeName(doc.type())) +
                   ", not a Kubernetes object; skipped");
    return;
  }
  std::string kind = StringField(doc, "kind");
  std::string api_version = StringField(doc, "apiVersion");
  if (kind.empty()) kind = default_kind;
  if (api_version.empty()) api_version = default_api_version;
  if (kind.empty()) {
    AddWarning(context.diagnostics, context.source, DescribeDocument(doc, ""),
               "document has no kind; skipped");
    return;
  }
  if (kind.size() >= 4 && kind.ends_with("List")) {
    DecodeList(doc, kind, api_version, context, list_depth, out);
    return;
  }
  const auto entry = std::find_if(std::begin(kSupportedKinds), std::end(kSupportedKinds),
                                  [&](const KindEntry& e) { return e.kind == kind; });
  if (entry == std::end(kSupportedKinds)) {
    AddWarning(context.diagnostics, context.source, DescribeDocument(doc, kind),
               "skipping unsupported kind " + kind + " " + api_version);
    return;
  }
  if (entry->api_version != api_version) {
    AddWarning(context.diagnostics, context.source, DescribeDocument(doc, kind),
               "skipping " + kind + " with unsupported apiVersion \"" + api_version +
                   "\" (expected " + std::string(entry->api_version) + ")");
    return;
  }
  AppendObject(doc, kind, context, out);
}

void LoadFile(const fs::path& path, const std::string& source, LoadResult& out) {
  Result<std::string> text = ReadTextFile(path.string());
  if (!text.ok()) {
    AddError(out, source, text.message());
    return;
  }
  DecodeManifestText(text.value(), source, out);
}

bool IsManifestFile(const fs::directory_entry& entry) {
  std::error_code ec;
  if (!entry.is_regular_file(ec)) return false;
  const std::string ext = entry.path().extension().string();
  return ext == ".yaml" || ext == ".yml" || ext == ".json";
}

void LoadDirectory(const fs::path& dir, const std::string& source, LoadResult& out) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (IsManifestFile(*it)) files.push_back(it->path());
  }
  if (ec) {
    AddError(out, source, "cannot list directory: " + ec.message());
    return;
  }
  if (files.empty()) {
    AddWarning(out.diagnostics, source, "", "no *.yaml, *.yml or *.json files in directory");
  }
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  for (const fs::path& file : files) LoadFile(file, file.string(), out);
}

}  // namespace

Result<std::string> ReadTextFile(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Result<std::string>::Error("is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Result<std::string>::Error(fs::exists(path, ec) ? "cannot open for reading"
                                                           : "no such file or directory");
  }
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) return Result<std::string>::Error("read error");
  return text;
}

bool LoadResult::HasErrors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(), [](const core::Diagnostic& d) {
    return d.severity == core::Diagnostic::Severity::kError;
  });
}

void DecodeManifestText(std::string_view text, std::string_view source, LoadResult& out) {
  const DecodeContext context{source, out.diagnostics};
  if (LooksLikeJson(text)) {
    Result<Value> doc = ParseJson(text);
    if (!doc.ok()) {
      AddError(out, source, "JSON syntax error: " + doc.message());
      return;
    }
    DecodeDocument(doc.value(), context, 0, "", "", out.objects);
    return;
  }
  Result<std::vector<Value>> docs = ParseYamlDocuments(text);
  if (!docs.ok()) {
    AddError(out, source, "YAML syntax error: " + docs.message());
    return;
  }
  for (const Value& doc : docs.value()) DecodeDocument(doc, context, 0, "", "", out.objects);
}

LoadResult LoadManifests(const std::vector<std::string>& paths, std::istream& stdin_stream) {
  LoadResult out;
  for (const std::string& path : paths) {
    if (path == "-") {
      std::ostringstream text;
      text << stdin_stream.rdbuf();
      DecodeManifestText(text.str(), "-", out);
      continue;
    }
    std::error_code ec;
    const fs::file_status status = fs::status(path, ec);
    if (status.type() == fs::file_type::not_found) {
      AddError(out, path, "cannot read: no such file or directory");
    } else if (ec) {
      AddError(out, path, "cannot read: " + ec.message());
    } else if (fs::is_directory(status)) {
      LoadDirectory(path, path, out);
    } else {
      LoadFile(path, path, out);
    }
  }
  return out;
}

}  // namespace quotient::kube
