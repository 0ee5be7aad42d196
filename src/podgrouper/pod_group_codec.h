// Reading the PodGroups and the default-priorities ConfigMap the pod grouper works with.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"
#include "podgrouper/grouping.h"

namespace quotient::podgrouper {

// A PodGroup object (scheduling.run.ai/v2alpha2) as a spec: name, minMember, subGroups, queue,
// priority class, preemptibility, owner. Fields it cannot read are left at their defaults.
PodGroupSpec PodGroupSpecFromObject(const Object& object);

// KAI's default-priorities ConfigMap, its `types` key: a JSON list of {typeName, group,
// priorityName, preemptibility}. Keyed as Settings::kind_defaults ("Kind.group", or "Kind" when
// no group is given). An entry without typeName, or text that is not such a list, is an error
// naming the entry.
Result<std::map<std::string, KindDefaults>> ParseKindDefaults(std::string_view types_json);

}  // namespace quotient::podgrouper
