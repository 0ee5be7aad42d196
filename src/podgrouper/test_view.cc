#include "podgrouper/test_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "podgrouper/groupers.h"
#include "podgrouper/pod_group_codec.h"

namespace quotient::podgrouper::testing {

namespace {

std::string GroupOf(const std::string& api_version) {
  const size_t slash = api_version.find('/');
  return slash == std::string::npos ? std::string() : api_version.substr(0, slash);
}

}  // namespace

std::vector<Object> LoadObjects(const std::string& file) {
  const std::string path = std::string(QUOTIENT_PODGROUPER_TESTDATA) + "/" + file;
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::vector<Object> objects;
  if (!in) {
    ADD_FAILURE() << path << ": cannot read";
    return objects;
  }
  Result<std::vector<kube::Value>> docs = kube::ParseYamlDocuments(text.str());
  if (!docs.ok()) {
    ADD_FAILURE() << path << ": " << docs.message();
    return objects;
  }
  for (kube::Value& doc : docs.value()) {
    Result<Object> object = ObjectFromValue(std::move(doc));
    if (!object.ok()) {
      ADD_FAILURE() << path << ": " << object.message();
      continue;
    }
    objects.push_back(std::move(object).value());
  }
  return objects;
}

MapView::MapView(std::vector<Object> objects) : objects_(std::move(objects)) {
  for (const Object& o : objects_) {
    if (o.kind == "PodGroup") pod_groups_.push_back(PodGroupSpecFromObject(o));
  }
}

const Object* MapView::Find(const std::string& api_version, const std::string& kind,
                            const std::string& namespace_name, const std::string& name) const {
  // Any version of the group: a stored object is served in every version of its kind.
  for (const Object& o : objects_) {
    if (o.group() == GroupOf(api_version) && o.kind == kind && o.namespace_name == namespace_name &&
        o.name == name) {
      return &o;
    }
  }
  return nullptr;
}

std::vector<const Object*> MapView::PodsWithLabels(const std::string& namespace_name,
                                                   const Labels& selector) const {
  std::vector<const Object*> pods;
  for (const Object& o : objects_) {
    if (o.kind != "Pod" || o.namespace_name != namespace_name) continue;
    const bool matches = std::all_of(selector.begin(), selector.end(), [&](const auto& kv) {
      const auto it = o.labels.find(kv.first);
      return it != o.labels.end() && it->second == kv.second;
    });
    if (matches) pods.push_back(&o);
  }
  std::sort(pods.begin(), pods.end(),
            [](const Object* a, const Object* b) { return a->name < b->name; });
  return pods;
}

const PodGroupSpec* MapView::ExistingPodGroup(const std::string& namespace_name,
                                              const std::string& name) const {
  for (const PodGroupSpec& pg : pod_groups_) {
    if (pg.namespace_name == namespace_name && pg.name == name) return &pg;
  }
  return nullptr;
}

bool MapView::PriorityClassExists(const std::string& name) const {
  return std::any_of(objects_.begin(), objects_.end(),
                     [&](const Object& o) { return o.kind == "PriorityClass" && o.name == name; });
}

const Object& Named(const std::vector<Object>& objects, const std::string& kind,
                    const std::string& name) {
  for (const Object& o : objects) {
    if (o.kind == kind && o.name == name) return o;
  }
  ADD_FAILURE() << "no " << kind << " named " << name;
  static const Object none;
  return none;
}

std::vector<Object> OwnersOf(const Object& pod, const std::vector<Object>& objects) {
  std::vector<Object> owners;
  const Object* current = &pod;
  for (size_t depth = 0; depth < 16; ++depth) {
    const OwnerReference* ref = current->ControllerOwner();
    if (ref == nullptr) break;
    const Object* next = nullptr;
    for (const Object& o : objects) {
      if (o.kind == ref->kind && o.name == ref->name && o.namespace_name == pod.namespace_name) {
        next = &o;
      }
    }
    if (next == nullptr) break;
    owners.push_back(*next);
    current = next;
  }
  return owners;
}

Grouping GroupNamedPod(const std::vector<Object>& objects, const std::string& pod,
                       const Settings& settings) {
  const Object& p = Named(objects, "Pod", pod);
  const MapView view(objects);
  return GroupPod(p, OwnersOf(p, objects), view, settings);
}

std::string WarningWith(const Grouping& grouping, const std::vector<std::string>& parts) {
  std::vector<std::string> matching;
  for (const std::string& warning : grouping.warnings) {
    const bool all = std::all_of(parts.begin(), parts.end(), [&](const std::string& part) {
      return warning.find(part) != std::string::npos;
    });
    if (all) matching.push_back(warning);
  }
  EXPECT_EQ(matching.size(), 1u) << "warnings: " << ::testing::PrintToString(grouping.warnings);
  return matching.empty() ? "" : matching.front();
}

}  // namespace quotient::podgrouper::testing
