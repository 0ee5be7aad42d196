#include "podgrouper/pod_group_codec.h"

namespace quotient::podgrouper {

PodGroupSpec PodGroupSpecFromObject(const Object& o) {
  PodGroupSpec pg;
  pg.name = o.name;
  pg.namespace_name = o.namespace_name;
  if (const OwnerReference* owner = o.ControllerOwner()) pg.owner = *owner;
  pg.queue = ReadString(At(o, {"spec", "queue"}));
  pg.priority_class_name = ReadString(At(o, {"spec", "priorityClassName"}));
  pg.preemptibility = ReadString(At(o, {"spec", "preemptibility"}));
  std::vector<std::string> ignored;  // a PodGroup's own errors are the scheduler's to report
  pg.min_member = ReadCount(At(o, {"spec", "minMember"}), o, "spec.minMember", ignored).value_or(1);
  const kube::Value* subs = At(o, {"spec", "subGroups"});
  for (size_t i = 0; subs != nullptr && subs->is_sequence() && i < subs->size(); ++i) {
    const kube::Value& s = subs->items()[i];
    SubGroupSpec sub;
    sub.name = ReadString(s.Find("name"));
    sub.min_member = ReadCount(s.Find("minMember"), o, "minMember", ignored).value_or(1);
    sub.parent = ReadString(s.Find("parent"));
    pg.sub_groups.push_back(std::move(sub));
  }
  pg.labels = o.labels;
  pg.annotations = o.annotations;
  return pg;
}

Result<std::map<std::string, KindDefaults>> ParseKindDefaults(std::string_view types_json) {
  using R = Result<std::map<std::string, KindDefaults>>;
  Result<kube::Value> parsed = kube::ParseJson(types_json);
  if (!parsed.ok()) return R::Error("types: " + parsed.message());
  const kube::Value& list = parsed.value();
  if (!list.is_sequence()) return R::Error("types: expected a JSON list");
  std::map<std::string, KindDefaults> out;
  for (size_t i = 0; i < list.size(); ++i) {
    const kube::Value& entry = list.items()[i];
    const std::string field = "types[" + std::to_string(i) + "]";
    if (!entry.is_mapping()) return R::Error(field + ": expected an object");
    const std::string kind = ReadString(entry.Find("typeName"));
    if (kind.empty()) return R::Error(field + ".typeName: missing");
    const std::string group = ReadString(entry.Find("group"));
    KindDefaults d{ReadString(entry.Find("priorityName")),
                   ReadString(entry.Find("preemptibility"))};
    if (!d.preemptibility.empty() && d.preemptibility != "preemptible" &&
        d.preemptibility != "non-preemptible") {
      return R::Error(field + ".preemptibility: \"" + d.preemptibility +
                      "\" (expected preemptible or non-preemptible)");
    }
    out[group.empty() ? kind : kind + "." + group] = std::move(d);
  }
  return out;
}

}  // namespace quotient::podgrouper
