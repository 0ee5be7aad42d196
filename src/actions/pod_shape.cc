#include "actions/pod_shape.h"

#include <string_view>

namespace quotient::actions {

std::string PodShape(const framework::Session& session, core::Index pod_index) {
  const core::Pod& pod = session.pod(pod_index);
  if (!pod.host_ports.empty() || !pod.affinity.required_pod_affinity.empty() ||
      !pod.affinity.required_pod_anti_affinity.empty() ||
      !session.pods_with_anti_affinity().empty()) {
    return "";
  }
  const core::Job& job = session.job(pod.job);
  // Fields are separated by characters that cannot occur in names, labels or numbers.
  std::string s = job.node_pool;
  const auto add = [&s](std::string_view text) {
    s += '\x1f';
    s += text;
  };
  const auto add_number = [&add](int64_t n) { add(std::to_string(n)); };
  const core::ResourceVector& r = pod.request;
  for (const core::Quantity q :
       {r.cpu_milli, r.memory_bytes, r.gpu_milli, r.gpu_memory_mib, r.pods_milli}) {
    add_number(q.value());
  }
  for (const auto& [name, amount] : r.scalars()) {
    add(name);
    add_number(amount.value());
  }
  add_number(static_cast<int64_t>(pod.gpu.kind));
  add_number(pod.gpu.whole_devices);
  add_number(pod.gpu.portion_milli.value());
  add_number(pod.gpu.memory_mib.value());
  add_number(pod.gpu.num_devices);
  add_number(pod.gpu.mig_gpu_units_milli.value());
  add_number(pod.gpu.legacy_mig ? 1 : 0);
  AppendNodeConstraints(pod, s);
  return s;
}

void AppendNodeConstraints(const core::Pod& pod, std::string& s) {
  const auto add = [&s](std::string_view text) {
    s += '\x1f';
    s += text;
  };
  for (const core::Toleration& t : pod.tolerations) {
    add("t");
    for (const std::string* f : {&t.key, &t.op, &t.value, &t.effect}) add(*f);
  }
  for (const auto& [key, value] : pod.node_selector) {
    add("s");
    add(key);
    add(value);
  }
  for (const core::NodeSelectorTerm& term : pod.affinity.required_node_terms) {
    add("term");
    for (const auto* list : {&term.match_expressions, &term.match_fields}) {
      add("list");
      for (const core::SelectorRequirement& req : *list) {
        add(req.key);
        add(req.op);
        for (const std::string& v : req.values) add(v);
        add("end");
      }
    }
  }
}

}  // namespace quotient::actions
