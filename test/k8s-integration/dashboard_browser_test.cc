// The scheduler's dashboard (docs/dashboard.md) in a real browser: `quotient scheduler
// --dashboard` runs against the harness with a queue tree, GPU nodes (one with an unhealthy GPU,
// one cordoned), a GPU shared by two queues, a reclaim that evicts, and a gang that cannot fit;
// headless Chromium (Debian's `chromium`, which scripts/setup.sh installs) loads /dashboard,
// and the DOM it renders must show each queue's numbers as the API server has them, the nodes,
// the shared GPU, the unhealthy GPU, the pending reason and the evictions. A screenshot is saved
// (in the harness's data folder and in <build>/dashboard-browser/).
//
// Then, without a cluster, the page's honesty about its data: state older than its staleness
// limit, a scheduler that stops answering after the first fetch (the last data stays, marked),
// and a replica that does not lead, each served by an in-process ops server.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "core/quantity.h"
#include "e2e_support.h"
#include "service/dashboard.h"
#include "telemetry/ops_server.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::resources::Events;
using kubeclient::resources::Nodes;
using kubeclient::resources::PodGroups;
using kubeclient::resources::Pods;
using kubeclient::resources::Queues;
using nlohmann::json;

// Chromium: $CHROMIUM, else the first of chromium, chromium-browser, google-chrome on PATH.
std::string FindChromium() {
  if (const char* given = std::getenv("CHROMIUM"); given != nullptr && *given != '\0') {
    return given;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    for (const char* name : {"chromium", "chromium-browser", "google-chrome"}) {
      const std::filesystem::path candidate = std::filesystem::path(dir) / name;
      if (access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Where this run's pages and screenshots go: the harness's data folder (removed after a passing
// run) and <build>/dashboard-browser (kept, for a person to look at).
std::string OutDir() {
  const std::string dir = Harness().data_dir() + "/dashboard-browser";
  std::filesystem::create_directories(dir);
  return dir;
}
void Keep(const std::string& file) {
  std::filesystem::create_directories(QUOTIENT_BROWSER_OUT);
  std::filesystem::copy_file(
      file, std::filesystem::path(QUOTIENT_BROWSER_OUT) / std::filesystem::path(file).filename(),
      std::filesystem::copy_options::overwrite_existing);
}

// The serialised DOM without the page's own script text (which names every class and message the
// page can show), so that a check for something absent means it was not rendered.
std::string WithoutScripts(std::string dom) {
  for (size_t at = dom.find("<script"); at != std::string::npos; at = dom.find("<script", at)) {
    const size_t end = dom.find("</script>", at);
    if (end == std::string::npos) return dom.substr(0, at);
    dom.erase(at, end + 9 - at);
  }
  return dom;
}

struct Rendered {
  int exit_code = -1;
  std::string dom;  // without scripts
  std::string log;  // Chromium's stderr: its own messages and the page's console
};

// Headless, as root in a container: no sandbox, no GPU, /dev/shm not relied on, a throwaway
// profile. Virtual time lets the page's timers (its polls every few seconds) run without
// waiting for them.
std::string Browser(const std::string& chromium, const std::string& name) {
  return "timeout 120 " + Quote(chromium) +
         " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
         " --no-default-browser-check --disable-extensions --hide-scrollbars"
         " --enable-logging=stderr --v=0 --user-data-dir=" +
         Quote(OutDir() + "/profile-" + name);
}

Rendered DumpDom(const std::string& chromium, const std::string& url, const std::string& name,
                 int virtual_ms = 8000) {
  const std::string dom_file = OutDir() + "/" + name + "-dom.html";
  const std::string log_file = OutDir() + "/" + name + "-chromium.log";
  CommandResult run = RunCommand(
      {"/bin/sh", "-c",
       Browser(chromium, name) + " --virtual-time-budget=" + std::to_string(virtual_ms) +
           " --dump-dom " + Quote(url) + " >" + Quote(dom_file) + " 2>" + Quote(log_file)});
  return {run.exit_code, WithoutScripts(ReadFile(dom_file)), ReadFile(log_file)};
}

CommandResult Screenshot(const std::string& chromium, const std::string& url,
                         const std::string& file) {
  return RunCommand({"/bin/sh", "-c",
                     Browser(chromium, "shot") +
                         " --virtual-time-budget=8000 --window-size=1600,1000 --screenshot=" +
                         Quote(file) + " " + Quote(url) + " >/dev/null 2>" + Quote(file + ".log")});
}

// The page's console errors and uncaught exceptions, as Chromium logs them.
std::string ConsoleErrors(const std::string& log) {
  std::string out;
  std::stringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("Uncaught") != std::string::npos ||
        (line.find("CONSOLE") != std::string::npos &&
         line.find("dashboard") != std::string::npos)) {
      out += line + "\n";
    }
  }
  return out;
}

// Text as it appears in the serialised DOM.
std::string Html(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

// The element that starts at the first `marker` (an attribute), up to the end of its row, card
// or node box: the text from the marker to the next element of the same kind.
std::string Element(const std::string& dom, const std::string& marker, const std::string& next) {
  const size_t at = dom.find(marker);
  if (at == std::string::npos) return "";
  const size_t end = dom.find(next, at + marker.size());
  return dom.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// A GPU quantity from the API ("8", "8250m") as the page writes it ("8", "8.25": rounded to
// hundredths, no trailing zeros).
std::string GpusText(const std::string& quantity) {
  Result<core::Quantity> q =
      core::ParseQuantity(quantity, core::Scale::kMilli, core::Rounding::kUp);
  EXPECT_TRUE(q.ok()) << quantity;
  return q.ok() ? core::FormatDecimal((q->value() + 5) / 10, 2) : "?";
}

json QueueObject(const std::string& name, int gpu_quota, const std::string& parent) {
  json queue = QueueJson(name, gpu_quota);
  if (!parent.empty()) queue["spec"]["parentQueue"] = parent;
  return queue;
}

TEST(DashboardBrowserTest, ShowsTheQueuesGpusPendingReasonsAndEvictionsOfTheCluster) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "no chromium on PATH (scripts/setup.sh installs Debian's chromium)";
  }
  TwoNodeCluster cluster("dash", {});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-dash";
  // dash-org -> dash-train (8 GPUs deserved), dash-research (2), dash-infer (2).
  for (const auto& [queue, quota, parent] :
       std::vector<std::tuple<std::string, int, std::string>>{{"dash-org", 12, ""},
                                                              {"dash-train", 8, "dash-org"},
                                                              {"dash-research", 2, "dash-org"},
                                                              {"dash-infer", 2, "dash-org"}}) {
    ASSERT_TRUE(admin->Create(Queues(), "", QueueObject(queue, quota, parent).dump()).ok());
    cluster.queues.push_back(queue);
  }
  // A third node, cordoned; the agent reports GPU 3 of the second unhealthy (7 of 8 left).
  const std::string cordoned = "dash-gpu-3";
  ASSERT_TRUE(admin->Create(Nodes(), "", FakeNodeJson(cordoned)).ok());
  cluster.nodes.push_back(cordoned);
  ASSERT_TRUE(admin
                  ->Patch(Nodes(), "", cordoned, kubeclient::PatchType::kMerge,
                          R"({"spec":{"unschedulable":true}})")
                  .ok());
  const json health = {
      {"metadata",
       {{"annotations",
         {{"quotient.dev/gpu-health",
           R"({"unhealthy":[{"uuid":"GPU-dash-2-3","index":3,"reason":"Xid79"}]})"}}}}}};
  ASSERT_TRUE(
      admin->Patch(Nodes(), "", cluster.nodes[1], kubeclient::PatchType::kMerge, health.dump())
          .ok());
  // One GPU of the first node shared by two queues: pods placed before this scheduler started
  // (bound by name, in one GPU group), half a GPU for dash-infer and a quarter for dash-research.
  for (const auto& [pod, queue, fraction] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"frac-infer", "dash-infer", "0.5"}, {"frac-research", "dash-research", "0.25"}}) {
    json p = json::parse(PodJson(pod, json{{"kai.scheduler/queue", queue}}.dump()));
    p["metadata"]["labels"]["runai-gpu-group"] = "dash-shared-0";
    p["metadata"]["annotations"]["gpu-fraction"] = fraction;
    p["spec"]["schedulerName"] = scheduler;
    p["spec"]["nodeName"] = cluster.nodes[0];
    ASSERT_TRUE(admin->Create(Pods(), ns, p.dump()).ok()) << pod;
  }
  // --gpu-sharing=false: those two have no reservation pod, which the sharing binder's collector
  // would otherwise remove.
  SchedulerProcess process(scheduler, "", {"--dashboard", "--gpu-sharing=false"});
  auto bound = [&](const std::string& prefix) {
    int n = 0;
    auto pods = admin->List(Pods(), ns, {});
    for (const auto& p : pods->items) {
      if (p.name.rfind(prefix, 0) == 0 && !p.deleting &&
          !JsonField(p.json, "spec.nodeName").empty())
        ++n;
    }
    return n;
  };
  // dash-research borrows 12 of the 14 whole GPUs left; then dash-train asks for 6 of its 8:
  // reclaim takes some back.
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             GpuPod("research-" + std::to_string(i), scheduler, "dash-research", 1))
                    .ok());
  }
  ASSERT_TRUE(WaitFor([&] { return bound("research-") == 12; }, std::chrono::seconds(60)))
      << process.Log();
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(
        admin->Create(Pods(), ns, GpuPod("train-" + std::to_string(i), scheduler, "dash-train", 1))
            .ok());
  }
  ASSERT_TRUE(WaitFor([&] { return bound("train-") == 6; }, std::chrono::seconds(90)))
      << "train: " << bound("train-") << " research: " << bound("research-");
  // A gang no node can hold: two pods of 8 GPUs (no node has 8 healthy GPUs free).
  json group = {{"apiVersion", "scheduling.run.ai/v2alpha2"},
                {"kind", "PodGroup"},
                {"metadata", {{"name", "dash-big"}}},
                {"spec", {{"queue", "dash-train"}, {"minMember", 2}}}};
  ASSERT_TRUE(admin->Create(PodGroups(), ns, group.dump()).ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(
        admin
            ->Create(Pods(), ns,
                     GpuPod("big-" + std::to_string(i), scheduler, "dash-train", 8, "dash-big"))
            .ok());
  }
  std::string pending_message;
  ASSERT_TRUE(WaitFor(
      [&] {
        json status = json::parse(admin->Get(PodGroups(), ns, "dash-big")->json)["status"];
        if (!status.contains("schedulingConditions") || status["schedulingConditions"].empty()) {
          return false;
        }
        pending_message = status["schedulingConditions"][0]["message"].get<std::string>();
        return pending_message.find("GPUs") != std::string::npos;
      },
      std::chrono::seconds(30)))
      << pending_message;

  // What was evicted: the research pods (and the quarter-GPU one) the API server no longer runs.
  // (Not the scheduler's Evict Events: they are best effort, and a write the API server refuses
  // while it starts up is not retried, so they can miss an eviction that happened.)
  std::set<std::string> evicted;
  int whole_evicted = 0;
  auto gone = [&](const std::string& pod) {
    auto p = admin->Get(Pods(), ns, pod);
    return !p.ok() || p->deleting;
  };
  auto read_evicted = [&] {
    evicted.clear();
    for (int i = 0; i < 12; ++i) {
      if (gone("research-" + std::to_string(i))) evicted.insert("research-" + std::to_string(i));
    }
    whole_evicted = static_cast<int>(evicted.size());
    if (gone("frac-research")) evicted.insert("frac-research");
  };
  read_evicted();
  ASSERT_FALSE(evicted.empty());
  const bool quarter_evicted = evicted.count("frac-research") != 0;

  // The dashboard's state has caught up: every eviction, the pending gang.
  const int port = process.OpsPort();
  ASSERT_GT(port, 0) << process.Log();
  const std::string base = "http://127.0.0.1:" + std::to_string(port);
  json state;
  ASSERT_TRUE(WaitFor(
      [&] {
        HttpAnswer answer = HttpGet(base + "/dashboard/state");
        if (answer.status != 200) return false;
        state = json::parse(answer.body);
        read_evicted();
        return !state["state"].is_null() && state["evictions"].size() == evicted.size() &&
               state["state"]["pending_total"] == 1;
      },
      std::chrono::seconds(30)))
      << state.dump().substr(0, 2000);

  const std::string url = base + "/dashboard";
  Rendered page = DumpDom(chromium, url, "live");
  Keep(OutDir() + "/live-dom.html");
  ASSERT_EQ(page.exit_code, 0) << page.log;
  const std::string& dom = page.dom;
  ASSERT_NE(dom.find("id=\"queues\""), std::string::npos) << dom.substr(0, 500);
  EXPECT_EQ(ConsoleErrors(page.log), "");
  EXPECT_NE(dom.find("<b>Live</b>"), std::string::npos) << "the fresh data is not called live";

  // Each queue's row carries the numbers the scheduler wrote into the Queue's status; the quota
  // is the one created above, and no queue has a limit.
  const std::map<std::string, int> quota = {
      {"dash-org", 12}, {"dash-train", 8}, {"dash-research", 2}, {"dash-infer", 2}};
  for (const auto& [queue, deserved] : quota) {
    const json status = json::parse(admin->Get(Queues(), "", queue)->json)["status"];
    const std::string row = Element(dom, "data-queue=\"" + queue + "\"", "</tr>");
    ASSERT_FALSE(row.empty()) << queue;
    const auto cell = [&](const std::string& field, const std::string& text) {
      EXPECT_NE(row.find("data-field=\"" + field + "\">" + text + "<"), std::string::npos)
          << queue << " " << field << " should read " << text << ": " << row;
    };
    cell("allocated", GpusText(status["allocated"]["nvidia.com/gpu"].get<std::string>()));
    cell("fair_share", GpusText(status["fairShare"]["nvidia.com/gpu"].get<std::string>()));
    cell("requested", GpusText(status["requested"]["nvidia.com/gpu"].get<std::string>()));
    cell("deserved", std::to_string(deserved));
    cell("limit", "∞");
  }
  // And those statuses are what the setup implies: six for dash-train, half a GPU for
  // dash-infer, what reclaim left of dash-research's twelve plus its quarter.
  const std::string train_row = Element(dom, "data-queue=\"dash-train\"", "</tr>");
  EXPECT_NE(train_row.find("data-field=\"allocated\">6<"), std::string::npos) << train_row;
  EXPECT_NE(
      Element(dom, "data-queue=\"dash-infer\"", "</tr>").find("data-field=\"allocated\">0.5<"),
      std::string::npos);
  const std::string research_allocated =
      std::to_string(12 - whole_evicted) + (quarter_evicted ? "" : ".25");
  EXPECT_NE(Element(dom, "data-queue=\"dash-research\"", "</tr>")
                .find("data-field=\"allocated\">" + research_allocated + "<"),
            std::string::npos)
      << research_allocated;

  // The GPU map: every node; the shared GPU with both queues' parts; the unhealthy GPU; the
  // cordoned node marked.
  for (const std::string& node : cluster.nodes) {
    EXPECT_NE(dom.find("data-node=\"" + node + "\""), std::string::npos) << node;
  }
  const std::string first = Element(dom, "data-node=\"" + cluster.nodes[0] + "\"", "data-node=");
  const std::string shared = Element(first, "class=\"gpu shared\"", "class=\"gpu");
  EXPECT_NE(shared.find("data-queue=\"dash-infer\" data-share=\"0.5\""), std::string::npos)
      << first;
  EXPECT_NE(shared.find("data-queue=\"dash-research\" data-share=\"0.25\""), std::string::npos)
      << first;
  const std::string second = Element(dom, "data-node=\"" + cluster.nodes[1] + "\"", "data-node=");
  EXPECT_NE(second.find("class=\"gpu unhealthy\""), std::string::npos) << second;
  EXPECT_NE(second.find("data-reason=\"Xid79\""), std::string::npos) << second;
  const std::string third = Element(dom, "data-node=\"" + cordoned + "\"", "data-node=");
  EXPECT_NE(third.find("node unusable"), std::string::npos) << third;
  EXPECT_NE(third.find(">cordoned<"), std::string::npos) << third;
  EXPECT_EQ(first.find("node unusable"), std::string::npos) << first;

  // The pending gang, its queue and minimum, and the reason the PodGroup's status gives.
  const std::string pending = Element(dom, "data-group=\"" + ns + "/dash-big\"", "class=\"pend\"");
  ASSERT_FALSE(pending.empty()) << dom;
  EXPECT_NE(pending.find("dash-train"), std::string::npos) << pending;
  EXPECT_NE(pending.find("2 pods pending · needs 2 at once"), std::string::npos) << pending;
  std::stringstream reasons(pending_message);
  for (std::string reason; std::getline(reasons, reason, ';');) {
    if (reason.front() == ' ') reason.erase(0, 1);
    EXPECT_NE(pending.find(Html(reason)), std::string::npos) << reason << "\n" << pending;
  }

  // Every eviction, as reclaim, with its queue.
  for (const std::string& pod : evicted) {
    const std::string row = Element(dom, "data-pod=\"" + ns + "/" + pod + "\"", "class=\"evi\"");
    ASSERT_FALSE(row.empty()) << pod;
    EXPECT_NE(row.find(">reclaim<"), std::string::npos) << row;
    EXPECT_NE(row.find("dash-research"), std::string::npos) << row;
  }
  EXPECT_NE(dom.find(std::to_string(evicted.size()) + " in all"), std::string::npos);

  // The screenshot, for a person to look at.
  const std::string png = OutDir() + "/dashboard.png";
  CommandResult shot = Screenshot(chromium, url, png);
  ASSERT_EQ(shot.exit_code, 0) << ReadFile(png + ".log");
  ASSERT_TRUE(std::filesystem::exists(png));
  EXPECT_GT(std::filesystem::file_size(png), 50'000u) << "a blank page?";
  Keep(png);
  std::printf("dashboard screenshot: %s/dashboard.png\n", QUOTIENT_BROWSER_OUT);
}

// A small state: one queue, one node with one GPU of it in use.
json SmallState(std::chrono::system_clock::time_point computed_at) {
  const int64_t ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(computed_at.time_since_epoch()).count();
  const json resource = {{"deserved", 1000},
                         {"limit", nullptr},
                         {"fair_share", 1000},
                         {"allocated", 1000},
                         {"allocated_non_preemptible", 0},
                         {"requested", 1000}};
  return {{"scheduler", "quotient"},
          {"node_pool", ""},
          {"computed_at_ms", ms},
          {"cycle", 5},
          {"cycle_ms", 2},
          {"schedule_period_ms", 1000},
          {"queues",
           {{{"name", "team-x"},
             {"parent", ""},
             {"children", json::array()},
             {"priority", 100},
             {"resources", {{"gpu", resource}, {"cpu", resource}, {"memory", resource}}}}}},
          {"nodes",
           {{{"name", "node-x"},
             {"pool", ""},
             {"usable", true},
             {"allocatable", {{"gpu", 2000}, {"cpu", 8000}, {"memory", 1 << 30}}},
             {"used", {{"gpu", 1000}, {"cpu", 0}, {"memory", 0}}},
             {"gpus",
              {{{"holders", {{{"pod", "ns/p"}, {"queue", "team-x"}, {"milli", 1000}}}}},
               json::object()}}}}},
          {"pending", json::array()},
          {"pending_total", 0}};
}

// The page served as the scheduler serves it, with a state route of the test's own.
class ScriptedDashboard {
 public:
  explicit ScriptedDashboard(std::function<telemetry::OpsServer::Reply()> state) {
    EXPECT_TRUE(
        server_
            .AddRoute(
                "/dashboard",
                {"text/html; charset=utf-8",
                 {},
                 [] {
                   return telemetry::OpsServer::Reply{200, std::string(service::DashboardHtml())};
                 }})
            .ok());
    EXPECT_TRUE(
        server_.AddRoute("/dashboard/state", {"application/json", {}, std::move(state)}).ok());
    EXPECT_TRUE(server_.Start().ok());
  }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(server_.Port()) + "/dashboard";
  }

 private:
  telemetry::OpsServer server_{"127.0.0.1:0", {}, [] { return std::string(); }};
};

TEST(DashboardBrowserTest, SaysWhenItsDataIsOldTheSchedulerIsUnreachableOrItDoesNotLead) {
  const std::string chromium = FindChromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "no chromium on PATH (scripts/setup.sh installs Debian's chromium)";
  }
  // 1. The scheduler's cycles stopped ten minutes ago (its last state is from then): stale, and
  // says so.
  const auto now = std::chrono::system_clock::now();
  service::Dashboard stopped;
  stopped.SetLeading(true);
  stopped.NoteCycle(5, now - std::chrono::minutes(10), std::chrono::seconds(1));
  stopped.Publish(SmallState(now - std::chrono::minutes(10)), now - std::chrono::minutes(10));
  ScriptedDashboard stopped_server([&] {
    return telemetry::OpsServer::Reply{200, stopped.StateText(std::chrono::system_clock::now())};
  });
  Rendered old_page = DumpDom(chromium, stopped_server.url(), "stale");
  ASSERT_EQ(old_page.exit_code, 0) << old_page.log;
  EXPECT_NE(old_page.dom.find("<b>Stale data:</b> the scheduler's last cycle ran 10 min ago"),
            std::string::npos)
      << old_page.dom;
  EXPECT_NE(old_page.dom.find("<b>Stale</b>"), std::string::npos);
  EXPECT_NE(old_page.dom.find("class=\"is-stale\""), std::string::npos);
  EXPECT_NE(old_page.dom.find("data-queue=\"team-x\""), std::string::npos);  // still shown
  EXPECT_EQ(ConsoleErrors(old_page.log), "");

  // 1b. Cycles run, but nobody watched for a while, so the last state built is old: the page says
  // it is catching up, not that the data is stale, and the next cycle (here: the second request)
  // brings a fresh state.
  service::Dashboard idle;
  idle.SetLeading(true);
  idle.Publish(SmallState(now - std::chrono::minutes(5)), now - std::chrono::minutes(5));
  std::atomic<int> idle_requests{0};
  ScriptedDashboard idle_server([&] {
    const auto t = std::chrono::system_clock::now();
    idle.NoteCycle(100 + idle_requests, t, std::chrono::seconds(1));
    if (idle_requests++ == 1) idle.Publish(SmallState(t), t);
    return telemetry::OpsServer::Reply{200, idle.StateText(t)};
  });
  Rendered catching_up = DumpDom(chromium, idle_server.url(), "catching-up", 2000);
  ASSERT_EQ(catching_up.exit_code, 0) << catching_up.log;
  EXPECT_EQ(idle_requests.load(), 1);  // one poll in 2 s
  EXPECT_NE(catching_up.dom.find("<b>Catching up:</b>"), std::string::npos) << catching_up.dom;
  EXPECT_EQ(catching_up.dom.find("Stale data"), std::string::npos) << catching_up.dom;
  Rendered caught_up = DumpDom(chromium, idle_server.url(), "caught-up", 4000);
  ASSERT_EQ(caught_up.exit_code, 0) << caught_up.log;
  EXPECT_NE(caught_up.dom.find("<b>Live</b>"), std::string::npos) << caught_up.dom;
  EXPECT_EQ(caught_up.dom.find("Catching up"), std::string::npos) << caught_up.dom;

  // 2. Fresh data once, then the scheduler answers 503: the data stays, marked, and the page says
  // since when and how often it failed (polls at 0, 3 and 6 s of the page's time).
  service::Dashboard fresh;
  fresh.SetLeading(true);
  std::atomic<int> requests{0};
  ScriptedDashboard flaky([&] {
    if (requests++ > 0) return telemetry::OpsServer::Reply{503, "gone"};
    const auto t = std::chrono::system_clock::now();
    fresh.NoteCycle(5, t, std::chrono::seconds(1));
    fresh.Publish(SmallState(t), t);
    return telemetry::OpsServer::Reply{200, fresh.StateText(t)};
  });
  Rendered flaky_page = DumpDom(chromium, flaky.url(), "unreachable");
  ASSERT_EQ(flaky_page.exit_code, 0) << flaky_page.log;
  EXPECT_GE(requests.load(), 3);
  EXPECT_NE(flaky_page.dom.find("<b>Cannot reach the scheduler</b> since"), std::string::npos)
      << flaky_page.dom;
  EXPECT_NE(
      flaky_page.dom.find("HTTP 503; " + std::to_string(requests.load() - 1) + " failed tries"),
      std::string::npos)
      << flaky_page.dom;
  EXPECT_NE(flaky_page.dom.find("Showing the last data received"), std::string::npos);
  EXPECT_NE(flaky_page.dom.find("<b>Unreachable</b>"), std::string::npos);
  EXPECT_NE(flaky_page.dom.find("data-queue=\"team-x\""), std::string::npos);
  EXPECT_NE(flaky_page.dom.find("data-node=\"node-x\""), std::string::npos);
  EXPECT_NE(flaky_page.dom.find("class=\"is-stale\""), std::string::npos);

  // 3. A standby replica: no state, and it says it is not the leader.
  service::Dashboard standby;
  ScriptedDashboard standby_server([&] {
    return telemetry::OpsServer::Reply{200, standby.StateText(std::chrono::system_clock::now())};
  });
  Rendered standby_page = DumpDom(chromium, standby_server.url(), "standby");
  ASSERT_EQ(standby_page.exit_code, 0) << standby_page.log;
  EXPECT_NE(standby_page.dom.find("<b>This replica is not the leader</b>"), std::string::npos)
      << standby_page.dom;
  EXPECT_EQ(standby_page.dom.find("data-queue="), std::string::npos);
}

}  // namespace
}  // namespace quotient::k8s_integration
