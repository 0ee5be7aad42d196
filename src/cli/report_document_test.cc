#include "cli/report_document.h"

#include <gtest/gtest.h>

namespace quotient::cli {
namespace {

using core::Bound;
using core::Quantity;
using core::ShareResource;

scheduler::RunReport OneOfEach() {
  scheduler::RunReport r;
  r.cycles.push_back({0,
                      {{"allocate", framework::DecisionKind::kBind, "ns/a", "n1", {"0"}, ""},
                       {"reclaim", framework::DecisionKind::kEvict, "ns/b", "n2", {}, "why"},
                       {"reclaim", framework::DecisionKind::kPipeline, "ns/c", "n2", {}, ""}},
                      {},
                      {}});
  r.pods.push_back({"ns/a", "ns/pg", "q", "Bound", "n1", {"0"}, ""});
  scheduler::PodGroupReport group;
  group.pod_group = "ns/pg";
  group.queue = "q";
  group.min_member = 2;
  group.status = "Pending";
  group.reasons = {"text"};
  r.pod_groups.push_back(group);
  scheduler::QueueReport q;
  q.name = "q";
  q.parent = "dept";
  q.priority = 100;
  q.deserved = {Bound::Of(Quantity(2000)), Bound::Of(Quantity(4000)),
                Bound::Of(Quantity(8'000'000'000))};
  q.limit = {Bound::Unlimited(), Bound::Unlimited(), Bound::Unlimited()};
  q.fair_share = {Quantity(3500), Quantity(4000), Quantity(8'000'000'000)};
  q.allocated = {Quantity(3000), Quantity(3000), Quantity(6'000'000'000)};
  q.requested = {Quantity(5000), Quantity(5000), Quantity(9'000'000'000)};
  r.queues.push_back(q);
  return r;
}

TEST(ReportDocument, MatchesTheContractExactly) {
  const std::string expected = R"({
  "cycles": [
    {
      "index": 0,
      "decisions": [
        {
          "action": "allocate",
          "kind": "bind",
          "pod": "ns/a",
          "node": "n1",
          "gpuGroups": [
            "0"
          ]
        },
        {
          "action": "reclaim",
          "kind": "evict",
          "pod": "ns/b",
          "node": "n2",
          "reason": "why"
        },
        {
          "action": "reclaim",
          "kind": "pipeline",
          "pod": "ns/c",
          "node": "n2"
        }
      ]
    }
  ],
  "pods": [
    {
      "pod": "ns/a",
      "podGroup": "ns/pg",
      "queue": "q",
      "status": "Bound",
      "node": "n1",
      "gpuGroups": [
        "0"
      ],
      "reason": ""
    }
  ],
  "podGroups": [
    {
      "podGroup": "ns/pg",
      "queue": "q",
      "minMember": 2,
      "status": "Pending",
      "reasons": [
        "text"
      ]
    }
  ],
  "queues": [
    {
      "name": "q",
      "parent": "dept",
      "priority": 100,
      "deserved": {
        "gpu": 2,
        "cpu": 4000,
        "memory": 8000000000
      },
      "limit": {
        "gpu": null,
        "cpu": null,
        "memory": null
      },
      "fairShare": {
        "gpu": 3.5,
        "cpu": 4000,
        "memory": 8000000000
      },
      "allocated": {
        "gpu": 3,
        "cpu": 3000,
        "memory": 6000000000
      },
      "requested": {
        "gpu": 5,
        "cpu": 5000,
        "memory": 9000000000
      }
    }
  ]
}
)";
  EXPECT_EQ(ToJson(ReportDocument(OneOfEach())), expected);
}

TEST(ReportDocument, YamlCarriesTheSameValues) {
  const std::string yaml = ToYaml(ReportDocument(OneOfEach()));
  EXPECT_NE(yaml.find("gpu: 3.5"), std::string::npos);
  EXPECT_NE(yaml.find("gpu: ~"), std::string::npos);
  EXPECT_NE(yaml.find("kind: \"evict\""), std::string::npos);
  EXPECT_NE(yaml.find("memory: 9000000000"), std::string::npos);
}

TEST(ReportDocument, FractionsOfAGpuAreExactDecimals) {
  scheduler::RunReport r = OneOfEach();
  r.queues[0].fair_share[ShareResource::kGpu] = Quantity(250);
  r.queues[0].allocated[ShareResource::kGpu] = Quantity(1);
  const Document d = ReportDocument(r);
  EXPECT_EQ(d["queues"][0]["fairShare"]["gpu"].dump(), "0.25");
  EXPECT_EQ(d["queues"][0]["allocated"]["gpu"].dump(), "0.001");
}

}  // namespace
}  // namespace quotient::cli
