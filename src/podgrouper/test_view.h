// Test support: objects read from YAML files under testdata/, and a ClusterView over them.
#pragma once

#include <string>
#include <vector>

#include "podgrouper/grouping.h"

namespace quotient::podgrouper::testing {

// Every object of testdata/<file> (YAML, `---`-separated); fails the test on a bad file.
std::vector<Object> LoadObjects(const std::string& file);

// A ClusterView over a list of objects: PodGroups (scheduling.run.ai/v2alpha2) answer
// ExistingPodGroup, PriorityClasses PriorityClassExists, pods PodsWithLabels, anything Find.
class MapView : public ClusterView {
 public:
  explicit MapView(std::vector<Object> objects = {});
  const Object* Find(const std::string& api_version, const std::string& kind,
                     const std::string& namespace_name, const std::string& name) const override;
  std::vector<const Object*> PodsWithLabels(const std::string& namespace_name,
                                            const Labels& selector) const override;
  const PodGroupSpec* ExistingPodGroup(const std::string& namespace_name,
                                       const std::string& name) const override;
  bool PriorityClassExists(const std::string& name) const override;
  void AddPodGroup(PodGroupSpec group) { pod_groups_.push_back(std::move(group)); }

 private:
  std::vector<Object> objects_;
  std::vector<PodGroupSpec> pod_groups_;
};

// The object of that kind and name among `objects`; fails the test when absent.
const Object& Named(const std::vector<Object>& objects, const std::string& kind,
                    const std::string& name);

// The owner chain of `pod` among `objects`, following controller owner references by kind and
// name, from the pod's owner up to the top owner (an owner not among the objects ends it).
std::vector<Object> OwnersOf(const Object& pod, const std::vector<Object>& objects);

// GroupPod on the pod named `pod` of `objects`, with a MapView over all of them.
Grouping GroupNamedPod(const std::vector<Object>& objects, const std::string& pod,
                       const Settings& settings = {});

// The one warning of `grouping` that contains every one of `parts`; fails the test unless
// exactly one does.
std::string WarningWith(const Grouping& grouping, const std::vector<std::string>& parts);

}  // namespace quotient::podgrouper::testing
