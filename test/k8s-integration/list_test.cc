// Paged lists against the real API server: 5,000 pods come back in pages of 500, each exactly
// once, under one list resourceVersion.
#include <gtest/gtest.h>

#include <set>
#include <thread>

#include "cluster.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Pods;

TEST(ListTest, PaginatedListOf5000Pods) {
  auto admin = AdminClient();
  std::string ns = CreateNamespace(*admin, "list");
  constexpr int kPods = 5000;
  constexpr int kThreads = 4;
  std::vector<std::thread> writers;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      auto client = AdminClient();
      for (int i = t; i < kPods; i += kThreads) {
        auto created = client->Create(Pods(), ns, PodJson("p-" + std::to_string(i)));
        if (!created.ok()) ++failures;
      }
    });
  }
  for (std::thread& w : writers) w.join();
  ASSERT_EQ(failures.load(), 0);

  kubeclient::ListOptions options;
  options.limit = 500;
  std::set<std::string> names;
  int items = 0;
  auto version = admin->ListEach(Pods(), ns, options, [&](kubeclient::RawObject&& pod) {
    names.insert(pod.name);
    ++items;
  });
  ASSERT_TRUE(version.ok()) << version.error().Describe();
  EXPECT_FALSE(version->empty());
  EXPECT_EQ(items, kPods);  // no page delivered twice
  EXPECT_EQ(names.size(), static_cast<size_t>(kPods));
  EXPECT_TRUE(names.contains("p-0") && names.contains("p-4999"));

  // The same through List; the request count shows the paging: 5,000 / 500 = 10 pages.
  int64_t before = admin->RequestsSent();
  auto list = admin->List(Pods(), ns, options);
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->items.size(), static_cast<size_t>(kPods));
  EXPECT_EQ(admin->RequestsSent() - before, 10);

  // A label selector narrows the list on the server.
  auto none = admin->List(Pods(), ns, {"app=absent", "", 500, ""});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->items.empty());

  ASSERT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
}

}  // namespace
}  // namespace quotient::k8s_integration
