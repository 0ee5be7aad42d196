// An API object as the server sent it: its JSON text, byte for byte (what typed decoders read
// and what a read-modify-write sends back), with the metadata every cache and retry needs pulled
// out once. List pages are cut into RawObjects without building a DOM of the whole page.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace quotient::kubeclient {

struct OwnerReference {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;
};

struct RawObject {
  std::string namespace_name;  // empty for cluster-scoped objects
  std::string name;
  std::string uid;
  std::string resource_version;
  bool deleting = false;  // metadata.deletionTimestamp is set
  std::map<std::string, std::string> labels;
  std::vector<OwnerReference> owners;  // metadata.ownerReferences, in order
  std::string json;

  // "namespace/name", or "name" for cluster-scoped objects (client-go's MetaNamespaceKey).
  std::string Key() const;
};

// Reads the metadata of one object's JSON text; the error says what is missing.
Result<RawObject> ReadRawObject(std::string_view json);
// The same without requiring metadata.name (a watch BOOKMARK carries only a resourceVersion).
Result<RawObject> ReadObjectWithoutName(std::string_view json);

struct ListPage {
  std::string resource_version;  // metadata.resourceVersion of the list
  std::string continue_token;    // metadata.continue, empty on the last page
};

// Parses a *List response, handing each item to `on_item` in order.
Result<ListPage> ParseListPage(std::string_view json,
                               const std::function<void(RawObject&&)>& on_item);

}  // namespace quotient::kubeclient
