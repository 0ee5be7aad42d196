#include "cli/report_document.h"

#include <yaml-cpp/yaml.h>

namespace quotient::cli {
namespace {

using core::Quantity;
using core::ShareResource;

Document GpuNumber(Quantity milli) {
  // Whole GPUs print as integers; fractions as the shortest decimal that round-trips (0.25).
  if (milli.value() % 1000 == 0) return Document(milli.value() / 1000);
  return Document(static_cast<double>(milli.value()) / 1000.0);
}

Document Amount(ShareResource r, Quantity q) {
  return r == ShareResource::kGpu ? GpuNumber(q) : Document(q.value());
}

Document Vector(const core::ShareVector& v) {
  Document d = Document::object();
  for (ShareResource r : core::kShareResources) {
    d[std::string(core::ShareResourceName(r))] = Amount(r, v[r]);
  }
  return d;
}

Document Bounds(const core::PerResource<core::Bound>& v) {
  Document d = Document::object();
  for (ShareResource r : core::kShareResources) {
    d[std::string(core::ShareResourceName(r))] =
        v[r].is_unlimited() ? Document(nullptr) : Amount(r, v[r].amount());
  }
  return d;
}

Document Decisions(const std::vector<framework::Decision>& decisions) {
  Document list = Document::array();
  for (const framework::Decision& d : decisions) {
    Document item = Document::object();
    item["action"] = d.action;
    item["kind"] = std::string(framework::DecisionKindName(d.kind));
    item["pod"] = d.pod;
    item["node"] = d.node;
    if (d.kind == framework::DecisionKind::kBind) item["gpuGroups"] = d.gpu_groups;
    if (d.kind == framework::DecisionKind::kEvict) item["reason"] = d.reason;
    list.push_back(std::move(item));
  }
  return list;
}

void EmitYaml(YAML::Emitter& out, const Document& d) {
  if (d.is_object()) {
    out << YAML::BeginMap;
    for (auto it = d.begin(); it != d.end(); ++it) {
      out << YAML::Key << it.key() << YAML::Value;
      EmitYaml(out, it.value());
    }
    out << YAML::EndMap;
  } else if (d.is_array()) {
    out << YAML::BeginSeq;
    for (const Document& item : d) EmitYaml(out, item);
    out << YAML::EndSeq;
  } else if (d.is_null()) {
    out << YAML::Null;
  } else if (d.is_string()) {
    out << YAML::DoubleQuoted << d.get<std::string>();
  } else {
    out << d.dump();  // numbers and booleans exactly as JSON writes them
  }
}

}  // namespace

Document ReportDocument(const scheduler::RunReport& report) {
  Document doc = Document::object();
  doc["cycles"] = Document::array();
  for (const scheduler::CycleReport& c : report.cycles) {
    Document cycle = Document::object();
    cycle["index"] = c.index;
    cycle["decisions"] = Decisions(c.decisions);
    doc["cycles"].push_back(std::move(cycle));
  }
  doc["pods"] = Document::array();
  for (const scheduler::PodReport& p : report.pods) {
    Document pod = Document::object();
    pod["pod"] = p.pod;
    pod["podGroup"] = p.pod_group;
    pod["queue"] = p.queue;
    pod["status"] = p.status;
    pod["node"] = p.node;
    pod["gpuGroups"] = p.gpu_groups;
    pod["reason"] = p.reason;
    doc["pods"].push_back(std::move(pod));
  }
  doc["podGroups"] = Document::array();
  for (const scheduler::PodGroupReport& g : report.pod_groups) {
    Document group = Document::object();
    group["podGroup"] = g.pod_group;
    group["queue"] = g.queue;
    group["minMember"] = g.min_member;
    group["status"] = g.status;
    group["reasons"] = g.reasons;
    doc["podGroups"].push_back(std::move(group));
  }
  doc["queues"] = Document::array();
  for (const scheduler::QueueReport& q : report.queues) {
    Document queue = Document::object();
    queue["name"] = q.name;
    queue["parent"] = q.parent;
    queue["priority"] = q.priority;
    queue["deserved"] = Bounds(q.deserved);
    queue["limit"] = Bounds(q.limit);
    queue["fairShare"] = Vector(q.fair_share);
    queue["allocated"] = Vector(q.allocated);
    queue["requested"] = Vector(q.requested);
    doc["queues"].push_back(std::move(queue));
  }
  return doc;
}

std::string ToJson(const Document& document) { return document.dump(2) + "\n"; }

std::string ToYaml(const Document& document) {
  YAML::Emitter out;
  EmitYaml(out, document);
  return std::string(out.c_str()) + "\n";
}

}  // namespace quotient::cli
