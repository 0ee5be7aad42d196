#include "simulate/workload_times.h"

#include <gtest/gtest.h>

#include "builders/objects.h"

namespace quotient::simulate {
namespace {

using std::chrono::seconds;
using testing::MakeGroup;
using testing::MakePod;

TEST(WorkloadTimesTest, PodsTakeTheirGroupsTimesUnlessTheyHaveTheirOwn) {
  core::ClusterObjects o;
  core::PodGroupObject g = MakeGroup("ns", "train").Queue("q");
  g.meta.annotations[std::string(kArrivalAnnotation)] = "1h";
  g.meta.annotations[std::string(kDurationAnnotation)] = "30m";
  o.pod_groups.push_back(g);
  o.pods.push_back(MakePod("ns", "w-0").Group("train"));
  o.pods.push_back(
      MakePod("ns", "w-1").Group("train").Annotation(std::string(kDurationAnnotation), "45m"));
  o.pods.push_back(MakePod("ns", "lone"));  // arrives at once, runs until the end
  o.pods.push_back(
      MakePod("ns", "running")
          .RunningOn("n1")
          .Annotation(std::string(kArrivalAnnotation), "2h"));  // already running: arrival 0
  o.pods.push_back(MakePod("ns", "theirs").Scheduler("other"));
  Result<std::map<std::string, PodTimes>> times = ReadPodTimes(o, "quotient");
  ASSERT_TRUE(times.ok()) << times.message();
  const auto& t = times.value();
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t.at("ns/w-0").arrival, seconds(3600));
  EXPECT_EQ(t.at("ns/w-0").duration, seconds(1800));
  EXPECT_EQ(t.at("ns/w-1").duration, seconds(2700));
  EXPECT_EQ(t.at("ns/lone").arrival, seconds(0));
  EXPECT_FALSE(t.at("ns/lone").duration.has_value());
  EXPECT_EQ(t.at("ns/running").arrival, seconds(0));
}

TEST(WorkloadTimesTest, NegativeArrivalsAndNonPositiveDurationsAreErrors) {
  for (const auto& [key, value] : std::vector<std::pair<std::string_view, std::string>>{
           {kArrivalAnnotation, "-5s"}, {kDurationAnnotation, "0s"}, {kArrivalAnnotation, "x"}}) {
    core::ClusterObjects o;
    o.pods.push_back(MakePod("ns", "p").Annotation(std::string(key), value));
    Result<std::map<std::string, PodTimes>> times = ReadPodTimes(o, "quotient");
    ASSERT_FALSE(times.ok()) << key << "=" << value;
    EXPECT_NE(times.message().find("Pod ns/p: metadata.annotations[" + std::string(key) + "]"),
              std::string::npos)
        << times.message();
  }
}

}  // namespace
}  // namespace quotient::simulate
