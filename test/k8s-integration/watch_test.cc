// Informers against the real API server: a watch that survives an API server restart, and a
// relist forced by etcd compaction (410 Gone), each ending with a cache equal to the server's
// state and every change delivered to the handlers exactly once.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "cluster.h"
#include "kubeclient/informer.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::Informer;
using kubeclient::resources::Pods;

struct PodView {
  std::string phase;
  std::string color;  // label, changed by the tests
};

Result<PodView> DecodePod(const kubeclient::RawObject& raw) {
  return PodView{JsonField(raw.json, "status.phase"), JsonField(raw.json, "metadata.labels.color")};
}

// Counts, per pod name, what the handlers were told.
struct Tally {
  std::mutex mu;
  std::map<std::string, int> adds, deletes, updates;
  Informer<PodView>::Handlers Handlers() {
    return {[this](const auto& p) {
              std::lock_guard l(mu);
              ++adds[p->name];
            },
            [this](const auto&, const auto& p) {
              std::lock_guard l(mu);
              ++updates[p->name];
            },
            [this](const auto& p) {
              std::lock_guard l(mu);
              ++deletes[p->name];
            }};
  }
  int Adds(const std::string& n) {
    std::lock_guard l(mu);
    return adds[n];
  }
  int Deletes(const std::string& n) {
    std::lock_guard l(mu);
    return deletes[n];
  }
};

kubeclient::ReflectorOptions PodsIn(const std::string& ns) {
  kubeclient::ReflectorOptions options;
  options.resource = Pods();
  options.namespace_name = ns;
  options.initial_backoff = std::chrono::milliseconds(200);
  options.max_backoff = std::chrono::seconds(2);
  return options;
}

// name -> resourceVersion, from the cache and from a fresh list.
std::map<std::string, std::string> CacheState(Informer<PodView>& informer) {
  std::map<std::string, std::string> out;
  for (const auto& p : informer.indexer().List()) out[p->name] = p->resource_version;
  return out;
}
std::map<std::string, std::string> ServerState(kubeclient::Client& client, const std::string& ns) {
  std::map<std::string, std::string> out;
  auto list = client.List(Pods(), ns, {});
  EXPECT_TRUE(list.ok());
  if (list.ok()) {
    for (const auto& p : list->items) out[p.name] = p.resource_version;
  }
  return out;
}

std::string Labelled(const std::string& name, const std::string& color) {
  return PodJson(name, R"({"color":")" + color + R"("})");
}

Status Recolor(kubeclient::Client& client, const std::string& ns, const std::string& name,
               const std::string& color) {
  auto r = client.Patch(Pods(), ns, name, kubeclient::PatchType::kMerge,
                        R"({"metadata":{"labels":{"color":")" + color + R"("}}})");
  return r.ok() ? Status::Ok() : Status::Error(r.error().Describe());
}

// A namespace with `count` red pods named <prefix>0.., and an informer on it, synced, whose
// handlers count into `tally`.
struct WatchedNamespace {
  std::unique_ptr<kubeclient::Client> admin = AdminClient();
  std::unique_ptr<kubeclient::Client> watcher = AdminClient();
  std::string ns;
  Tally tally;
  std::unique_ptr<Informer<PodView>> informer;

  WatchedNamespace(const std::string& base, const std::string& prefix, int count) {
    ns = CreateNamespace(*admin, base);
    for (int i = 0; i < count; ++i) {
      auto created = admin->Create(Pods(), ns, Labelled(prefix + std::to_string(i), "red"));
      EXPECT_TRUE(created.ok()) << created.error().Describe();
    }
    informer = std::make_unique<Informer<PodView>>(*watcher, PodsIn(ns), DecodePod);
    informer->AddHandlers(tally.Handlers());
    informer->Start();
    EXPECT_TRUE(informer->WaitForSync(std::chrono::seconds(30)));
  }
};

TEST(WatchTest, WatchSurvivesAnApiServerRestartWithoutLosingOrDuplicatingEvents) {
  WatchedNamespace w("restart", "a", 10);
  auto& admin = w.admin;
  const std::string& ns = w.ns;
  Informer<PodView>& informer = *w.informer;
  Tally& tally = w.tally;
  ASSERT_TRUE(informer.HasSynced());
  ASSERT_TRUE(admin->Create(Pods(), ns, Labelled("b0", "red")).ok());
  ASSERT_TRUE(WaitFor([&] { return tally.Adds("b0") == 1; }, std::chrono::seconds(20)));

  Status restarted = Harness().Restart();
  ASSERT_TRUE(restarted.ok()) << restarted.message();

  // After the restart: new pods, a changed one, deleted ones.
  admin = AdminClient();
  for (int i = 1; i < 6; ++i)
    ASSERT_TRUE(admin->Create(Pods(), ns, Labelled("b" + std::to_string(i), "blue")).ok());
  ASSERT_TRUE(Recolor(*admin, ns, "a0", "green").ok());
  for (int i = 7; i < 10; ++i) {
    kubeclient::DeleteOptions now;
    now.grace_period_seconds = 0;
    ASSERT_TRUE(admin->Delete(Pods(), ns, "a" + std::to_string(i), now).ok());
  }

  bool converged = WaitFor([&] { return CacheState(informer) == ServerState(*admin, ns); },
                           std::chrono::seconds(60));
  ASSERT_TRUE(converged) << "last reflector error: " << informer.reflector().Stats().last_error;
  EXPECT_EQ(informer.indexer().Get(ns + "/a0")->value.color, "green");
  // Every pod was announced once, every deletion once; nothing twice.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(tally.Adds("a" + std::to_string(i)), 1) << i;
  for (int i = 0; i < 6; ++i) EXPECT_EQ(tally.Adds("b" + std::to_string(i)), 1) << i;
  for (int i = 7; i < 10; ++i) EXPECT_EQ(tally.Deletes("a" + std::to_string(i)), 1) << i;
  EXPECT_EQ(tally.Deletes("a0"), 0);
  // It re-watched from the version it had (etcd still had the history): no relist needed.
  kubeclient::ReflectorStats stats = informer.reflector().Stats();
  EXPECT_GE(stats.watches, 2);
  EXPECT_EQ(stats.lists, 1);
  EXPECT_EQ(stats.relists_after_gone, 0);
  informer.Stop();
}

TEST(WatchTest, CompactionForcesARelistThatConvergesTheCache) {
  WatchedNamespace w("relist", "p", 5);
  auto& admin = w.admin;
  const std::string& ns = w.ns;
  Informer<PodView>& informer = *w.informer;
  Tally& tally = w.tally;
  ASSERT_TRUE(informer.HasSynced());
  informer.Stop();  // disconnected: the cache stays, holding the last resourceVersion

  // While it is away: changes, then etcd forgets the history it would need to catch up.
  ASSERT_TRUE(admin->Create(Pods(), ns, Labelled("p5", "red")).ok());
  ASSERT_TRUE(Recolor(*admin, ns, "p1", "blue").ok());
  kubeclient::DeleteOptions now;
  now.grace_period_seconds = 0;
  ASSERT_TRUE(admin->Delete(Pods(), ns, "p2", now).ok());
  Result<std::string> revision = Harness().Compact();
  ASSERT_TRUE(revision.ok()) << revision.message();

  informer.Start();  // resumes watching from its old version: 410, then a relist
  bool converged = WaitFor([&] { return CacheState(informer) == ServerState(*admin, ns); },
                           std::chrono::seconds(30));
  ASSERT_TRUE(converged) << informer.reflector().Stats().last_error;
  EXPECT_GE(informer.reflector().Stats().relists_after_gone, 1);
  EXPECT_EQ(informer.indexer().Get(ns + "/p1")->value.color, "blue");
  EXPECT_EQ(tally.Adds("p5"), 1);
  EXPECT_EQ(tally.Deletes("p2"), 1);
  EXPECT_EQ(tally.Adds("p0"), 1);  // unchanged pods are not announced again
  informer.Stop();
}

}  // namespace
}  // namespace quotient::k8s_integration
