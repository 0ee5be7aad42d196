// scheduling.run.ai/v2alpha2 PodGroup -> core::PodGroupObject (kai-reference §4.1).
#include <string>

#include "kube/codecs.h"
#include "kube/object_meta.h"

namespace quotient::kube {
namespace {

void DecodePreemptibility(FieldDecoder& d, const Value* spec, core::PodGroupObject& group) {
  std::optional<std::string> text = d.String(spec->Find("preemptibility"), "spec.preemptibility");
  if (!text || text->empty()) return;
  if (*text == "preemptible") {
    group.preemptibility = core::Preemptibility::kPreemptible;
  } else if (*text == "non-preemptible") {
    group.preemptibility = core::Preemptibility::kNonPreemptible;
  } else {
    d.Problem("spec.preemptibility",
              "unknown preemptibility \"" + *text + "\" (expected preemptible or non-preemptible)");
  }
}

void DecodeSubGroups(FieldDecoder& d, const Value* spec, core::PodGroupObject& group) {
  const Value* sub_groups = d.Sequence(spec->Find("subGroups"), "spec.subGroups");
  if (sub_groups == nullptr) return;
  for (size_t i = 0; i < sub_groups->size(); ++i) {
    const std::string field = FieldPath("spec.subGroups", i);
    const Value* sub_group = d.Mapping(&sub_groups->items()[i], field);
    if (sub_group == nullptr) continue;
    core::SubGroupSpec out;
    out.name = d.String(sub_group->Find("name"), FieldPath(field, "name")).value_or("");
    if (out.name.empty()) d.Problem(FieldPath(field, "name"), "missing subgroup name");
    out.min_member =
        d.Int32(sub_group->Find("minMember"), FieldPath(field, "minMember"), 0).value_or(1);
    out.parent = d.String(sub_group->Find("parent"), FieldPath(field, "parent"));
    group.sub_groups.push_back(std::move(out));
  }
}

}  // namespace

std::optional<core::PodGroupObject> DecodePodGroup(const Value& object,
                                                   const DecodeContext& context) {
  core::PodGroupObject group;
  std::optional<FieldDecoder> decoder =
      DecodeObjectMeta(object, "PodGroup", Scope::kNamespaced, context, group.meta, group.problems);
  if (!decoder) return std::nullopt;
  FieldDecoder& d = *decoder;

  const Value* spec = d.Mapping(object.Find("spec"), "spec");
  if (spec == nullptr) return group;
  group.queue = d.String(spec->Find("queue"), "spec.queue").value_or("");
  group.priority_class_name =
      d.String(spec->Find("priorityClassName"), "spec.priorityClassName").value_or("");
  DecodePreemptibility(d, spec, group);
  // The CRD's minimum is 1; an absent minMember counts as 1 (the scheduler uses max(minMember, 1)).
  group.min_member = d.Int32(spec->Find("minMember"), "spec.minMember", 0).value_or(1);
  DecodeSubGroups(d, spec, group);
  group.mark_unschedulable =
      d.Bool(spec->Find("markUnschedulable"), "spec.markUnschedulable").value_or(true);
  group.scheduling_backoff =
      d.Int32(spec->Find("schedulingBackoff"), "spec.schedulingBackoff").value_or(-1);
  // KAI v0.17: how long a pending workload waits before it may evict others (zero or negative:
  // no wait), and how long a gang may stay below its minimum before it is evicted (negative:
  // never).
  group.preemption_delay = d.Duration(spec->Find("preemptionDelay"), "spec.preemptionDelay", true);
  group.staleness_grace_period =
      d.Duration(spec->Find("stalenessGracePeriod"), "spec.stalenessGracePeriod", true);
  return group;
}

}  // namespace quotient::kube
