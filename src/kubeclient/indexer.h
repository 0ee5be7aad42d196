// The informer's object cache (client-go ThreadSafeStore/Indexer): objects of one type, keyed by
// "namespace/name" ("name" when cluster-scoped), plus named secondary indexes such as pods by
// node name or by label "k=v", so a reconcile or a scheduling cycle finds "pods on node a"
// without a scan.
//
// Objects are stored as std::shared_ptr<const T> and never change once stored; an update stores
// a new object. A reader may keep the pointers it got after the cache has moved on (a cheap
// snapshot). Index functions must be pure: an object's index values are recomputed from the
// stored object when it is updated or deleted, to take it out of its old index entries.
//
// Invariants, for every index I with function f and every value v:
//  1. key k is in I[v] exactly when k is stored and v is among f(object at k);
//  2. I has no empty entries, so IndexValues lists only values that find something.
// Results are sorted by key (List, ListKeys, ByIndex) or by value (IndexValues) so that callers
// iterate in a deterministic order.
//
// Thread-safety: all methods may be called from any thread; readers share a std::shared_mutex,
// writers (Add, Update, Delete, Replace, AddIndex) hold it alone. Index functions run under the
// writer lock and must not call back into the indexer.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace quotient::kubeclient {

template <typename T>
class Indexer {
 public:
  using ObjectPtr = std::shared_ptr<const T>;
  // The values `object` is filed under in one index; may be several (labels) or none.
  using IndexFunc = std::function<std::vector<std::string>(const T&)>;

  struct KeyedObject {
    std::string key;
    ObjectPtr object;
  };
  struct UpdatedObject {
    std::string key;
    ObjectPtr old_object;
    ObjectPtr new_object;
  };
  // What Replace changed, each list sorted by key: keys only in the new content, keys in both
  // (every one, whether or not the object differs; an informer treats them as resync updates),
  // and keys only in the old content with their last object.
  struct ReplaceDiff {
    std::vector<KeyedObject> added;
    std::vector<UpdatedObject> updated;
    std::vector<KeyedObject> deleted;
  };

  // Adds index `name`, filing the objects already stored. Fails if the name is taken.
  Status AddIndex(const std::string& name, IndexFunc func);

  // Stores `object` under `key`, replacing what was there, and returns the replaced object
  // (nullptr if none). A null `object` is not stored: nothing changes and nullptr is returned.
  ObjectPtr Add(const std::string& key, ObjectPtr object);
  // The same upsert as Add, named for the informer's MODIFIED events.
  ObjectPtr Update(const std::string& key, ObjectPtr object) { return Add(key, std::move(object)); }
  // Removes `key`; returns the removed object (nullptr if there was none).
  ObjectPtr Delete(const std::string& key);
  // Swaps the whole content for `items` in one step (a relist) and reports the difference.
  ReplaceDiff Replace(std::map<std::string, ObjectPtr> items);

  ObjectPtr Get(const std::string& key) const;  // nullptr if absent
  std::vector<ObjectPtr> List() const;
  std::vector<std::string> ListKeys() const;
  std::size_t Size() const;

  // Objects filed under `value` in index `index`; an error if there is no such index.
  Result<std::vector<ObjectPtr>> ByIndex(const std::string& index, const std::string& value) const;
  // Their keys.
  Result<std::vector<std::string>> IndexKeys(const std::string& index,
                                             const std::string& value) const;
  // Every value of `index` that has at least one object.
  Result<std::vector<std::string>> IndexValues(const std::string& index) const;

 private:
  using Entries = std::map<std::string, std::set<std::string>>;  // value -> keys
  struct Index {
    IndexFunc func;
    Entries entries;
  };

  void FileLocked(Index& index, const std::string& key, const T& object);
  void UnfileLocked(Index& index, const std::string& key, const T& object);
  const Index* FindIndexLocked(const std::string& name) const;

  mutable std::shared_mutex mu_;
  std::map<std::string, ObjectPtr> items_;
  std::map<std::string, Index> indexes_;
};

// ---- Implementation

template <typename T>
Status Indexer<T>::AddIndex(const std::string& name, IndexFunc func) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  if (indexes_.contains(name)) return Status::Error("index " + name + " already exists");
  Index& index = indexes_[name];
  index.func = std::move(func);
  for (const auto& [key, object] : items_) FileLocked(index, key, *object);
  return Status::Ok();
}

template <typename T>
typename Indexer<T>::ObjectPtr Indexer<T>::Add(const std::string& key, ObjectPtr object) {
  if (!object) return nullptr;
  std::unique_lock<std::shared_mutex> lock(mu_);
  ObjectPtr& slot = items_[key];
  ObjectPtr old = std::move(slot);
  for (auto& [name, index] : indexes_) {
    if (old) UnfileLocked(index, key, *old);
    FileLocked(index, key, *object);
  }
  slot = std::move(object);
  return old;
}

template <typename T>
typename Indexer<T>::ObjectPtr Indexer<T>::Delete(const std::string& key) {
  std::unique_lock<std::shared_mutex> lock(mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  ObjectPtr old = std::move(it->second);
  items_.erase(it);
  for (auto& [name, index] : indexes_) UnfileLocked(index, key, *old);
  return old;
}

template <typename T>
typename Indexer<T>::ReplaceDiff Indexer<T>::Replace(std::map<std::string, ObjectPtr> items) {
  std::erase_if(items, [](const auto& item) { return item.second == nullptr; });
  std::unique_lock<std::shared_mutex> lock(mu_);
  // Merge the two key-sorted maps, so every list in the diff comes out sorted by key.
  ReplaceDiff diff;
  auto old_it = items_.begin();
  auto new_it = items.begin();
  while (old_it != items_.end() || new_it != items.end()) {
    if (new_it == items.end() || (old_it != items_.end() && old_it->first < new_it->first)) {
      diff.deleted.push_back({old_it->first, old_it->second});
      ++old_it;
    } else if (old_it == items_.end() || new_it->first < old_it->first) {
      diff.added.push_back({new_it->first, new_it->second});
      ++new_it;
    } else {
      diff.updated.push_back({new_it->first, old_it->second, new_it->second});
      ++old_it;
      ++new_it;
    }
  }
  items_ = std::move(items);
  for (auto& [name, index] : indexes_) {
    index.entries.clear();
    for (const auto& [key, object] : items_) FileLocked(index, key, *object);
  }
  return diff;
}

template <typename T>
typename Indexer<T>::ObjectPtr Indexer<T>::Get(const std::string& key) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  auto it = items_.find(key);
  return it == items_.end() ? nullptr : it->second;
}

template <typename T>
std::vector<typename Indexer<T>::ObjectPtr> Indexer<T>::List() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<ObjectPtr> objects;
  objects.reserve(items_.size());
  for (const auto& [key, object] : items_) objects.push_back(object);
  return objects;
}

template <typename T>
std::vector<std::string> Indexer<T>::ListKeys() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  std::vector<std::string> keys;
  keys.reserve(items_.size());
  for (const auto& [key, object] : items_) keys.push_back(key);
  return keys;
}

template <typename T>
std::size_t Indexer<T>::Size() const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  return items_.size();
}

template <typename T>
Result<std::vector<typename Indexer<T>::ObjectPtr>> Indexer<T>::ByIndex(
    const std::string& index, const std::string& value) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const Index* found = FindIndexLocked(index);
  if (found == nullptr) return Status::Error("index " + index + " does not exist");
  std::vector<ObjectPtr> objects;
  auto entry = found->entries.find(value);
  if (entry == found->entries.end()) return objects;
  objects.reserve(entry->second.size());
  for (const std::string& key : entry->second) objects.push_back(items_.at(key));
  return objects;
}

template <typename T>
Result<std::vector<std::string>> Indexer<T>::IndexKeys(const std::string& index,
                                                       const std::string& value) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const Index* found = FindIndexLocked(index);
  if (found == nullptr) return Status::Error("index " + index + " does not exist");
  auto entry = found->entries.find(value);
  if (entry == found->entries.end()) return std::vector<std::string>{};
  return std::vector<std::string>(entry->second.begin(), entry->second.end());
}

template <typename T>
Result<std::vector<std::string>> Indexer<T>::IndexValues(const std::string& index) const {
  std::shared_lock<std::shared_mutex> lock(mu_);
  const Index* found = FindIndexLocked(index);
  if (found == nullptr) return Status::Error("index " + index + " does not exist");
  std::vector<std::string> values;
  values.reserve(found->entries.size());
  for (const auto& [value, keys] : found->entries) values.push_back(value);
  return values;
}

template <typename T>
void Indexer<T>::FileLocked(Index& index, const std::string& key, const T& object) {
  for (std::string& value : index.func(object)) index.entries[std::move(value)].insert(key);
}

template <typename T>
void Indexer<T>::UnfileLocked(Index& index, const std::string& key, const T& object) {
  for (const std::string& value : index.func(object)) {
    auto entry = index.entries.find(value);
    if (entry == index.entries.end()) continue;  // a value listed twice was removed already
    entry->second.erase(key);
    if (entry->second.empty()) index.entries.erase(entry);  // invariant 2
  }
}

template <typename T>
const typename Indexer<T>::Index* Indexer<T>::FindIndexLocked(const std::string& name) const {
  auto it = indexes_.find(name);
  return it == indexes_.end() ? nullptr : &it->second;
}

}  // namespace quotient::kubeclient
