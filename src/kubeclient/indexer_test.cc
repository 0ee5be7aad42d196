#include "kubeclient/indexer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace quotient::kubeclient {
namespace {

struct Pod {
  std::string namespace_name;
  std::string name;
  std::string node_name;
  std::map<std::string, std::string> labels;
  std::string owner;
};

using PodIndexer = Indexer<Pod>;
using PodPtr = PodIndexer::ObjectPtr;

PodPtr MakePod(std::string ns, std::string name, std::string node,
               std::map<std::string, std::string> labels = {}, std::string owner = "") {
  return std::make_shared<const Pod>(
      Pod{std::move(ns), std::move(name), std::move(node), std::move(labels), std::move(owner)});
}

std::string KeyOf(const Pod& pod) { return pod.namespace_name + "/" + pod.name; }

// The indexes an informer for pods would set up.
void AddPodIndexes(PodIndexer& indexer) {
  auto by_node = [](const Pod& pod) {
    if (pod.node_name.empty()) return std::vector<std::string>{};
    return std::vector<std::string>{pod.node_name};
  };
  auto by_label = [](const Pod& pod) {
    std::vector<std::string> values;
    for (const auto& [k, v] : pod.labels) values.push_back(k + "=" + v);
    return values;
  };
  auto by_namespace = [](const Pod& pod) { return std::vector<std::string>{pod.namespace_name}; };
  ASSERT_TRUE(indexer.AddIndex("node", by_node).ok());
  ASSERT_TRUE(indexer.AddIndex("label", by_label).ok());
  ASSERT_TRUE(indexer.AddIndex("namespace", by_namespace).ok());
}

void Put(PodIndexer& indexer, const PodPtr& pod) { indexer.Add(KeyOf(*pod), pod); }

std::vector<std::string> Names(const std::vector<PodPtr>& pods) {
  std::vector<std::string> names;
  for (const PodPtr& pod : pods) names.push_back(pod->name);
  return names;
}

std::vector<std::string> NamesByIndex(const PodIndexer& indexer, const std::string& index,
                                      const std::string& value) {
  Result<std::vector<PodPtr>> pods = indexer.ByIndex(index, value);
  EXPECT_TRUE(pods.ok()) << pods.message();
  return pods.ok() ? Names(*pods) : std::vector<std::string>{};
}

TEST(Indexer, StoresGetsAndListsByKeyInKeyOrder) {
  PodIndexer indexer;
  Put(indexer, MakePod("ns", "b", "n1"));
  Put(indexer, MakePod("ns", "a", "n1"));
  Put(indexer, MakePod("default", "z", "n2"));
  EXPECT_EQ(indexer.Size(), 3u);
  ASSERT_NE(indexer.Get("ns/a"), nullptr);
  EXPECT_EQ(indexer.Get("ns/a")->name, "a");
  EXPECT_EQ(indexer.Get("ns/missing"), nullptr);
  EXPECT_EQ(indexer.ListKeys(), (std::vector<std::string>{"default/z", "ns/a", "ns/b"}));
  EXPECT_EQ(Names(indexer.List()), (std::vector<std::string>{"z", "a", "b"}));
}

TEST(Indexer, AddReplacesTheObjectAndReturnsTheOldOne) {
  PodIndexer indexer;
  PodPtr first = MakePod("ns", "p", "a");
  EXPECT_EQ(indexer.Add("ns/p", first), nullptr);
  PodPtr second = MakePod("ns", "p", "b");
  EXPECT_EQ(indexer.Update("ns/p", second), first);
  EXPECT_EQ(indexer.Get("ns/p"), second);
  EXPECT_EQ(indexer.Size(), 1u);
  EXPECT_EQ(first->node_name, "a");  // a reader's pointer still shows the object it read
}

TEST(Indexer, ANullObjectIsNotStored) {
  PodIndexer indexer;
  Put(indexer, MakePod("ns", "p", "a"));
  EXPECT_EQ(indexer.Add("ns/p", nullptr), nullptr);
  ASSERT_NE(indexer.Get("ns/p"), nullptr);
  EXPECT_EQ(indexer.Get("ns/p")->node_name, "a");
}

TEST(Indexer, APodThatMovesFromNodeAToNodeBLeavesIndexA) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  Put(indexer, MakePod("ns", "p", "a"));
  Put(indexer, MakePod("ns", "q", "a"));
  EXPECT_EQ(NamesByIndex(indexer, "node", "a"), (std::vector<std::string>{"p", "q"}));
  Put(indexer, MakePod("ns", "p", "b"));
  EXPECT_EQ(NamesByIndex(indexer, "node", "a"), (std::vector<std::string>{"q"}));
  EXPECT_EQ(NamesByIndex(indexer, "node", "b"), (std::vector<std::string>{"p"}));
  Put(indexer, MakePod("ns", "q", "b"));
  EXPECT_TRUE(NamesByIndex(indexer, "node", "a").empty());
  EXPECT_EQ(*indexer.IndexValues("node"), (std::vector<std::string>{"b"}));  // no empty entry
}

TEST(Indexer, DeleteTakesTheObjectOutOfEveryIndex) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  PodPtr pod = MakePod("ns", "p", "a", {{"app", "web"}});
  Put(indexer, pod);
  Put(indexer, MakePod("ns", "q", "a"));
  EXPECT_EQ(indexer.Delete("ns/p"), pod);
  EXPECT_EQ(indexer.Delete("ns/p"), nullptr);  // already gone
  EXPECT_EQ(indexer.Get("ns/p"), nullptr);
  EXPECT_EQ(NamesByIndex(indexer, "node", "a"), (std::vector<std::string>{"q"}));
  EXPECT_TRUE(NamesByIndex(indexer, "label", "app=web").empty());
  EXPECT_TRUE(indexer.IndexValues("label")->empty());
  EXPECT_EQ(indexer.Size(), 1u);
}

TEST(Indexer, AnObjectIsFiledUnderEveryValueItsIndexFunctionReturns) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  Put(indexer, MakePod("ns", "p", "a", {{"app", "web"}, {"tier", "front"}}));
  Put(indexer, MakePod("ns", "q", "a", {{"app", "web"}}));
  EXPECT_EQ(NamesByIndex(indexer, "label", "app=web"), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(NamesByIndex(indexer, "label", "tier=front"), (std::vector<std::string>{"p"}));
  Put(indexer, MakePod("ns", "p", "a", {{"app", "web"}}));  // drops the tier label
  EXPECT_TRUE(NamesByIndex(indexer, "label", "tier=front").empty());
  EXPECT_EQ(NamesByIndex(indexer, "label", "app=web"), (std::vector<std::string>{"p", "q"}));
  EXPECT_EQ(*indexer.IndexValues("label"), (std::vector<std::string>{"app=web"}));
}

TEST(Indexer, AValueReturnedTwiceFilesTheObjectOnce) {
  PodIndexer indexer;
  auto owner_twice = [](const Pod& pod) { return std::vector<std::string>{pod.owner, pod.owner}; };
  ASSERT_TRUE(indexer.AddIndex("owner-twice", owner_twice).ok());
  Put(indexer, MakePod("ns", "p", "a", {}, "job-1"));
  EXPECT_EQ(*indexer.IndexKeys("owner-twice", "job-1"), (std::vector<std::string>{"ns/p"}));
  indexer.Delete("ns/p");
  EXPECT_TRUE(indexer.IndexValues("owner-twice")->empty());
}

TEST(Indexer, ByIndexIsSortedByKeyWhateverTheInsertionOrder) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  for (const char* name : {"m", "c", "x", "a"}) Put(indexer, MakePod("ns", name, "n"));
  EXPECT_EQ(NamesByIndex(indexer, "node", "n"), (std::vector<std::string>{"a", "c", "m", "x"}));
  EXPECT_EQ(*indexer.IndexKeys("node", "n"),
            (std::vector<std::string>{"ns/a", "ns/c", "ns/m", "ns/x"}));
}

TEST(Indexer, UnknownIndexIsAnErrorAndAnUnknownValueFindsNothing) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  EXPECT_EQ(indexer.ByIndex("gpu", "x").message(), "index gpu does not exist");
  EXPECT_FALSE(indexer.IndexKeys("gpu", "x").ok());
  EXPECT_FALSE(indexer.IndexValues("gpu").ok());
  Result<std::vector<PodPtr>> none = indexer.ByIndex("node", "nowhere");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(Indexer, AnIndexAddedLaterFilesTheObjectsAlreadyStored) {
  PodIndexer indexer;
  Put(indexer, MakePod("ns", "p", "a", {}, "job-1"));
  Put(indexer, MakePod("other", "q", "b", {}, "job-1"));
  auto by_owner = [](const Pod& pod) { return std::vector<std::string>{pod.owner}; };
  ASSERT_TRUE(indexer.AddIndex("owner", by_owner).ok());
  EXPECT_EQ(*indexer.IndexKeys("owner", "job-1"), (std::vector<std::string>{"ns/p", "other/q"}));
  Status again = indexer.AddIndex("owner", [](const Pod&) { return std::vector<std::string>{}; });
  EXPECT_EQ(again.message(), "index owner already exists");
  EXPECT_EQ(indexer.IndexKeys("owner", "job-1")->size(), 2u);  // the first function still rules
}

TEST(Indexer, ReplaceSwapsTheContentAndReportsWhatChanged) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  PodPtr a = MakePod("ns", "a", "n1");
  PodPtr b_old = MakePod("ns", "b", "n1");
  PodPtr c = MakePod("ns", "c", "n2");
  for (const PodPtr& pod : {a, b_old, c}) Put(indexer, pod);

  PodPtr b_new = MakePod("ns", "b", "n3");
  PodPtr d = MakePod("ns", "d", "n2");
  PodIndexer::ReplaceDiff diff = indexer.Replace({{"ns/b", b_new}, {"ns/c", c}, {"ns/d", d}});

  ASSERT_EQ(diff.added.size(), 1u);
  EXPECT_EQ(diff.added[0].key, "ns/d");
  EXPECT_EQ(diff.added[0].object, d);
  ASSERT_EQ(diff.updated.size(), 2u);  // b changed, c is the same object: both reported
  EXPECT_EQ(diff.updated[0].key, "ns/b");
  EXPECT_EQ(diff.updated[0].old_object, b_old);
  EXPECT_EQ(diff.updated[0].new_object, b_new);
  EXPECT_EQ(diff.updated[1].key, "ns/c");
  EXPECT_EQ(diff.updated[1].old_object, c);
  ASSERT_EQ(diff.deleted.size(), 1u);
  EXPECT_EQ(diff.deleted[0].key, "ns/a");
  EXPECT_EQ(diff.deleted[0].object, a);

  EXPECT_EQ(indexer.ListKeys(), (std::vector<std::string>{"ns/b", "ns/c", "ns/d"}));
  // The indexes are rebuilt: n1 held a and b, both gone from it.
  EXPECT_EQ(*indexer.IndexValues("node"), (std::vector<std::string>{"n2", "n3"}));
  EXPECT_EQ(NamesByIndex(indexer, "node", "n2"), (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(NamesByIndex(indexer, "node", "n3"), (std::vector<std::string>{"b"}));
}

TEST(Indexer, ReplaceWithNothingDeletesEverything) {
  PodIndexer indexer;
  AddPodIndexes(indexer);
  Put(indexer, MakePod("ns", "a", "n1"));
  Put(indexer, MakePod("ns", "b", "n1"));
  PodIndexer::ReplaceDiff diff = indexer.Replace({});
  EXPECT_TRUE(diff.added.empty());
  EXPECT_TRUE(diff.updated.empty());
  EXPECT_EQ(diff.deleted.size(), 2u);
  EXPECT_EQ(indexer.Size(), 0u);
  EXPECT_TRUE(indexer.IndexValues("node")->empty());
}

// Readers check, while a writer moves pods between nodes and relists, that every index answer
// agrees with the objects it returns. Meant for TSan.
TEST(Indexer, ConcurrentReadersSeeConsistentIndexesWhileAWriterMovesPods) {
  constexpr int kPods = 20;
  constexpr int kNodes = 4;
  constexpr int kWrites = 400;
  PodIndexer indexer;
  AddPodIndexes(indexer);
  auto node_of = [](int i) { return "node-" + std::to_string(i % kNodes); };
  for (int i = 0; i < kPods; ++i) Put(indexer, MakePod("ns", "p" + std::to_string(i), node_of(i)));

  std::atomic<bool> writing{true};
  std::atomic<int> inconsistencies{0};
  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      while (writing) {
        for (int n = 0; n < kNodes; ++n) {
          const std::string node = node_of(n);
          Result<std::vector<PodPtr>> pods = indexer.ByIndex("node", node);
          if (!pods.ok()) {
            ++inconsistencies;
            continue;
          }
          for (const PodPtr& pod : *pods) {
            if (pod->node_name != node) ++inconsistencies;
          }
        }
        const std::vector<std::string> keys = indexer.ListKeys();
        if (!std::is_sorted(keys.begin(), keys.end())) ++inconsistencies;
        if (indexer.Size() > static_cast<std::size_t>(kPods)) ++inconsistencies;
      }
    });
  }
  for (int w = 0; w < kWrites; ++w) {
    const int i = w % kPods;
    const std::string name = "p" + std::to_string(i);
    if (w % 50 == 49) {
      std::map<std::string, PodPtr> relist;
      for (int j = 0; j < kPods; j += 2) {
        PodPtr pod = MakePod("ns", "p" + std::to_string(j), node_of(j + w));
        relist.emplace(KeyOf(*pod), pod);
      }
      indexer.Replace(std::move(relist));
    } else if (w % 7 == 0) {
      indexer.Delete("ns/" + name);
    } else {
      Put(indexer, MakePod("ns", name, node_of(i + w)));
    }
  }
  writing = false;
  for (std::thread& reader : readers) reader.join();
  EXPECT_EQ(inconsistencies, 0);
  // After the writer: every stored pod is filed under exactly its own node.
  std::size_t filed = 0;
  for (int n = 0; n < kNodes; ++n) filed += indexer.ByIndex("node", node_of(n))->size();
  EXPECT_EQ(filed, indexer.Size());
}

}  // namespace
}  // namespace quotient::kubeclient
