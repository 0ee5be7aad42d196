// A shared informer for one kind of object: a Reflector keeping an Indexer of decoded objects in
// step with the API server, and handlers told about each change after the cache has it (so a
// handler that looks the object up finds the new state).
//
// Objects are decoded once, on arrival, into the caller's own compact type T ("transform on
// ingest": no raw JSON kept unless T keeps it). An object that cannot be decoded is left out
// of the cache, its error (naming it) handed to the decode-error handler and kept among the
// last 100 in DecodeErrors(); it never stops the
// stream.
//
// A relist (after 410) replaces the content: objects that vanished are reported deleted, objects
// whose resourceVersion changed are reported updated, unchanged ones are not reported again —
// so a handler sees each change once even across API server restarts and relists.
//
// Handlers run on the informer's thread, one at a time, in the server's order; they must be
// quick (enqueue a key into a WorkQueue and return).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "kubeclient/indexer.h"
#include "kubeclient/reflector.h"

namespace quotient::kubeclient {

// What the cache holds per object: the decoded value plus the identity every consumer needs.
template <typename T>
struct Cached {
  std::string key;  // namespace/name
  std::string namespace_name;
  std::string name;
  std::string uid;
  std::string resource_version;
  std::map<std::string, std::string> labels;
  std::vector<OwnerReference> owners;
  T value;
};

// Index functions every kind can use (register with indexer().AddIndex).
template <typename T>
std::vector<std::string> IndexByNamespace(const Cached<T>& object) {
  return {object.namespace_name};
}
// "key=value" for every label.
template <typename T>
std::vector<std::string> IndexByLabel(const Cached<T>& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.labels) out.push_back(key + "=" + value);
  return out;
}
// The uid of every owner (pods of a Job, ReplicaSet, PodGroup ...).
template <typename T>
std::vector<std::string> IndexByOwnerUid(const Cached<T>& object) {
  std::vector<std::string> out;
  for (const OwnerReference& owner : object.owners) out.push_back(owner.uid);
  return out;
}

template <typename T>
class Informer : public DeltaSink {
 public:
  using Object = Cached<T>;
  using ObjectPtr = std::shared_ptr<const Object>;
  using Decoder = std::function<Result<T>(const RawObject&)>;
  struct Handlers {
    std::function<void(const ObjectPtr&)> on_add;
    std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
    std::function<void(const ObjectPtr&)> on_delete;
  };

  Informer(Client& client, ReflectorOptions options, Decoder decode)
      : decode_(std::move(decode)), reflector_(client, std::move(options), *this) {}
  ~Informer() override { Stop(); }
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  Indexer<Object>& indexer() { return indexer_; }
  const Indexer<Object>& indexer() const { return indexer_; }
  const Reflector& reflector() const { return reflector_; }

  // Register before Start.
  void AddHandlers(Handlers handlers) { handlers_.push_back(std::move(handlers)); }

  void Start() {
    thread_ = std::jthread([this](std::stop_token stop) { reflector_.Run(stop); });
  }
  // Stops the watch and joins the thread; the cache keeps its content.
  void Stop() {
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }

  // True once the first list has been delivered to the cache and the handlers.
  bool HasSynced() const { return synced_.load(); }
  // Waits for HasSynced, at most `timeout`; returns HasSynced().
  bool WaitForSync(std::chrono::milliseconds timeout) {
    std::unique_lock lock(sync_mu_);
    return sync_cv_.wait_for(lock, timeout, [this] { return synced_.load(); });
  }

  // Called (on the informer's thread) for each object that cannot be decoded; register before
  // Start. A service logs these: a skipped object must not go unnoticed.
  void OnDecodeError(std::function<void(const std::string&)> handler) {
    on_decode_error_ = std::move(handler);
  }
  std::vector<std::string> DecodeErrors() const {
    std::lock_guard lock(errors_mu_);
    return decode_errors_;
  }

  // DeltaSink: called on the reflector's thread. A list is decoded as it arrives (each page's
  // JSON is dropped once decoded); the cache changes in one step at the end.
  void BeginReplace() override { pending_.clear(); }
  void ReplaceItem(RawObject raw) override {
    std::string key = raw.Key();
    ObjectPtr previous = indexer_.Get(key);
    if (previous && previous->resource_version == raw.resource_version) {
      pending_.emplace(std::move(key), previous);  // unchanged: keep it, report nothing
      return;
    }
    if (ObjectPtr decoded = Decode(raw)) pending_.emplace(std::move(key), std::move(decoded));
  }
  void AbortReplace() override { pending_.clear(); }
  void EndReplace(const std::string&) override {
    auto diff = indexer_.Replace(std::move(pending_));
    pending_.clear();
    for (const auto& added : diff.added) {
      Dispatch([&](Handlers& h) {
        if (h.on_add) h.on_add(added.object);
      });
    }
    for (const auto& updated : diff.updated) {
      if (updated.old_object == updated.new_object) continue;
      Dispatch([&](Handlers& h) {
        if (h.on_update) h.on_update(updated.old_object, updated.new_object);
      });
    }
    for (const auto& deleted : diff.deleted) {
      Dispatch([&](Handlers& h) {
        if (h.on_delete) h.on_delete(deleted.object);
      });
    }
    if (!synced_.exchange(true)) {
      std::lock_guard lock(sync_mu_);
      sync_cv_.notify_all();
    }
  }
  void OnAdded(RawObject raw) override { Upsert(std::move(raw)); }
  void OnModified(RawObject raw) override { Upsert(std::move(raw)); }
  void OnDeleted(RawObject raw) override {
    ObjectPtr old = indexer_.Delete(raw.Key());
    if (old)
      Dispatch([&](Handlers& h) {
        if (h.on_delete) h.on_delete(old);
      });
  }

 private:
  // Moves the metadata maps out of `raw` (the JSON itself is only read).
  ObjectPtr Decode(RawObject& raw) {
    Result<T> value = decode_(raw);
    if (!value.ok()) {
      std::string error = raw.Key() + ": " + value.message();
      if (on_decode_error_) on_decode_error_(error);
      std::lock_guard lock(errors_mu_);
      constexpr size_t kKeep =
          100;  // the recent ones; a broken object re-sent forever must not grow this
      if (decode_errors_.size() == kKeep) decode_errors_.erase(decode_errors_.begin());
      decode_errors_.push_back(std::move(error));
      return nullptr;
    }
    return std::make_shared<const Object>(Object{raw.Key(), raw.namespace_name, raw.name, raw.uid,
                                                 raw.resource_version, std::move(raw.labels),
                                                 std::move(raw.owners), std::move(value).value()});
  }

  void Upsert(RawObject raw) {
    ObjectPtr existing = indexer_.Get(raw.Key());
    // An ADDED for an object we already hold at that version (a re-watch replaying its start)
    // is no news.
    if (existing && existing->resource_version == raw.resource_version) return;
    ObjectPtr decoded = Decode(raw);
    if (!decoded) return;
    ObjectPtr old = indexer_.Add(decoded->key, decoded);
    if (old) {
      Dispatch([&](Handlers& h) {
        if (h.on_update) h.on_update(old, decoded);
      });
    } else {
      Dispatch([&](Handlers& h) {
        if (h.on_add) h.on_add(decoded);
      });
    }
  }

  template <typename F>
  void Dispatch(F&& call) {
    for (Handlers& h : handlers_) call(h);
  }

  Decoder decode_;
  Indexer<Object> indexer_;
  Reflector reflector_;
  std::vector<Handlers> handlers_;
  std::map<std::string, ObjectPtr> pending_;  // the list being received
  std::atomic<bool> synced_{false};
  std::mutex sync_mu_;
  std::condition_variable sync_cv_;
  mutable std::mutex errors_mu_;
  std::vector<std::string> decode_errors_;
  std::function<void(const std::string&)> on_decode_error_;
  std::jthread thread_;
};

}  // namespace quotient::kubeclient
