// The synthetic-cluster generator's entry points (docs/generate-command.md).
//
//   Result<ClusterSpec> spec = generate::PresetSpec("large");
//   Result<std::string> text = generate::GenerateClusterText(*spec, OutputFormat::kJson);
//   kube::LoadResult loaded;
//   kube::DecodeManifestText(*text, "large.json", loaded);
//
// Output is deterministic: the same spec gives byte-identical text on every platform. Objects
// come in a fixed order: PriorityClasses, Queues, Nodes, PodGroups, then Pods (running, then
// pending). JSON is one `kind: List` with one item per line; YAML is a `---`-separated stream
// of the same objects. Writing streams object by object, so memory stays that of the plan, not of
// the text.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "common/status.h"
#include "generate/cluster_plan.h"
#include "generate/cluster_spec.h"

namespace quotient::generate {

enum class OutputFormat { kJson, kYaml };

using ObjectVisitor = std::function<void(nlohmann::json)>;

// Calls `visit` with each object of the plan, in output order.
void ForEachObject(const ClusterPlan& plan, const ObjectVisitor& visit);

// Writes the objects `for_each` visits: JSON as one `kind: List` with one item per line, or a
// `---`-separated YAML stream. Also what trace adapters write with.
void WriteObjects(const std::function<void(const ObjectVisitor&)>& for_each, OutputFormat format,
                  std::ostream& out);

// The plan as one `kind: List` (its items in output order). Holds the whole cluster in memory
// (830 MB for xlarge, against 99 MB streaming); prefer WriteCluster for large specs.
nlohmann::json ClusterList(const ClusterPlan& plan);

// Writes the plan as text. JSON parses to ClusterList(plan); YAML decodes to the same objects.
void WriteCluster(const ClusterPlan& plan, OutputFormat format, std::ostream& out);

// PlanCluster, then ClusterList / WriteCluster into a string.
Result<nlohmann::json> GenerateCluster(const ClusterSpec& spec);
Result<std::string> GenerateClusterText(const ClusterSpec& spec, OutputFormat format);

}  // namespace quotient::generate
