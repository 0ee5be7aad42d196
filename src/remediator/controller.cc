#include "remediator/controller.h"

#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "remediation/decide.h"
#include "remediation/record_codec.h"
#include "remediator/fleet_view.h"
#include "remediator/step_objects.h"

namespace quotient::remediator {
namespace {

namespace r = remediation;

kubeclient::ReflectorOptions Watching(kubeclient::Resource resource, std::string namespace_name,
                                      std::string label_selector, std::string field_selector) {
  kubeclient::ReflectorOptions o;
  o.resource = std::move(resource);
  o.namespace_name = std::move(namespace_name);
  o.label_selector = std::move(label_selector);
  o.field_selector = std::move(field_selector);
  return o;
}

core::Time SystemNow() {
  return std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
}

}  // namespace

// The quotient_remediation_* series. Counters follow the executor's running totals.
struct Remediator::Metrics {
  explicit Metrics(prometheus::Registry& registry)
      : nodes(prometheus::BuildGauge()
                  .Name("quotient_remediation_nodes")
                  .Help("Nodes by remediation state (quotient.dev/remediation-state)")
                  .Register(registry)),
        actions(prometheus::BuildCounter()
                    .Name("quotient_remediation_actions_total")
                    .Help("Remediation actions applied, by action")
                    .Register(registry)),
        failures(prometheus::BuildCounter()
                     .Name("quotient_remediation_action_failures_total")
                     .Help("Remediation actions the API server refused or that failed, by action")
                     .Register(registry)),
        held_back(prometheus::BuildCounter()
                      .Name("quotient_remediation_held_back_total")
                      .Help("Reconciles in which a rail held a node back, by rail (breaker, "
                            "domain-cap, backoff, pdb, dry-run, ...)")
                      .Register(registry)),
        reconciles(prometheus::BuildCounter()
                       .Name("quotient_remediation_reconciles_total")
                       .Help("Reconciles of the whole fleet")
                       .Register(registry)
                       .Add({})) {}

  static void Follow(prometheus::Family<prometheus::Counter>& family, const std::string& label,
                     const std::map<std::string, int64_t>& totals) {
    for (const auto& [key, total] : totals) {
      prometheus::Counter& c = family.Add({{label, key}});
      const double delta = static_cast<double>(total) - c.Value();
      if (delta > 0) c.Increment(delta);
    }
  }

  void Update(const RemediatorStats& stats) {
    for (int s = 0; s <= static_cast<int>(r::State::kCancelled); ++s) {
      const std::string name(r::StateName(static_cast<r::State>(s)));
      auto it = stats.nodes_by_state.find(name);
      nodes.Add({{"state", name}})
          .Set(it == stats.nodes_by_state.end() ? 0.0 : static_cast<double>(it->second));
    }
    Follow(actions, "action", stats.execution.applied);
    Follow(failures, "action", stats.execution.failed);
    Follow(held_back, "rail", stats.execution.skipped);
    reconciles.Increment();
  }

  prometheus::Family<prometheus::Gauge>& nodes;
  prometheus::Family<prometheus::Counter>& actions;
  prometheus::Family<prometheus::Counter>& failures;
  prometheus::Family<prometheus::Counter>& held_back;
  prometheus::Counter& reconciles;
};

Remediator::Remediator(kubeclient::Client& client, RemediatorOptions options,
                       prometheus::Registry* registry, WebhookCaller webhook, WallNow now)
    : client_(client),
      options_(std::move(options)),
      now_(now ? std::move(now) : WallNow(SystemNow)),
      nodes_(client, Watching(kubeclient::resources::Nodes(), "", "", ""), DecodeNode),
      // Finished pods hold no node and need no drain; leaving them out keeps the cache small.
      pods_(client,
            Watching(kubeclient::resources::Pods(), "", "",
                     "status.phase!=Succeeded,status.phase!=Failed"),
            DecodePod),
      step_pods_(client,
                 Watching(kubeclient::resources::Pods(), options_.executor.pods.namespace_name,
                          std::string(kStepLabel), ""),
                 DecodePod),
      step_jobs_(client,
                 Watching(kubeclient::resources::Jobs(), options_.executor.pods.namespace_name,
                          std::string(kStepLabel), ""),
                 DecodeStepJob),
      step_results_(client,
                    Watching(kubeclient::resources::ConfigMaps(),
                             options_.executor.pods.namespace_name, std::string(kStepLabel), ""),
                    DecodeStepResult),
      events_(client, "quotient-remediator", options_.identity),
      executor_(client, events_, options_.executor, std::move(webhook)) {
  if (registry != nullptr) metrics_ = std::make_unique<Metrics>(*registry);
  auto poke = [this](const auto&...) { Poke(); };
  nodes_.AddHandlers({poke, poke, poke});
  pods_.AddHandlers({poke, poke, poke});
  step_pods_.AddHandlers({poke, poke, poke});
  step_jobs_.AddHandlers({poke, poke, poke});
  step_results_.AddHandlers({poke, poke, poke});
}

Remediator::~Remediator() { Stop(); }

void Remediator::Stop() {
  nodes_.Stop();
  pods_.Stop();
  step_pods_.Stop();
  step_jobs_.Stop();
  step_results_.Stop();
  events_.Flush();
}

void Remediator::Poke() {
  {
    std::lock_guard lock(mu_);
    dirty_ = true;
  }
  wake_.notify_one();
}

RemediatorStats Remediator::Stats() const {
  std::lock_guard lock(mu_);
  RemediatorStats out = stats_;
  out.execution = executor_.Stats();
  return out;
}

void Remediator::Run(std::stop_token stop) {
  const auto log_decode_error = [](const std::string& what) {
    spdlog::warn("remediation: cannot read {}", what);
  };
  nodes_.OnDecodeError(log_decode_error);
  pods_.OnDecodeError(log_decode_error);
  step_pods_.OnDecodeError(log_decode_error);
  step_jobs_.OnDecodeError(log_decode_error);
  step_results_.OnDecodeError(log_decode_error);
  events_.Start();
  nodes_.Start();
  pods_.Start();
  step_pods_.Start();
  step_jobs_.Start();
  step_results_.Start();
  while (!stop.stop_requested() &&
         !(nodes_.WaitForSync(std::chrono::milliseconds(100)) && pods_.HasSynced() &&
           step_pods_.HasSynced() && step_jobs_.HasSynced() && step_results_.HasSynced())) {
  }
  if (stop.stop_requested()) return Stop();
  ready_ = true;
  spdlog::info("remediation: caches synced; reconciling{}",
               options_.config.dry_run ? " (dry run: nothing is changed)" : "");
  while (!stop.stop_requested()) {
    const auto started = std::chrono::steady_clock::now();
    const core::Time now = now_();
    std::optional<core::Time> due = ReconcileOnce(now);
    core::Time next = now + options_.resync;
    if (due) next = std::min(next, *due);
    const auto wake_at =
        started + std::max<std::chrono::steady_clock::duration>(next - now, options_.min_interval);
    // At most one reconcile per min_interval, however busy the cluster.
    std::unique_lock lock(mu_);
    wake_.wait_until(lock, stop, started + options_.min_interval, [] { return false; });
    wake_.wait_until(lock, stop, wake_at, [this] { return dirty_; });
    dirty_ = false;
  }
  Stop();
}

std::optional<core::Time> Remediator::ReconcileOnce(core::Time now) {
  const auto nodes = nodes_.indexer().List();
  const auto pods = pods_.indexer().List();
  const auto step_pods = step_pods_.indexer().List();
  const auto step_jobs = step_jobs_.indexer().List();
  const auto step_results = step_results_.indexer().List();

  FleetInputs in;
  std::map<std::string, const ObservedNode*> by_name;
  for (const auto& n : nodes) {
    in.nodes.push_back(&n->value);
    by_name[n->value.name] = &n->value;
  }
  std::set<std::string> live;
  for (const auto& p : pods) {
    in.pods.push_back(&p->value);
    live.insert(p->value.uid);
  }
  for (const auto& p : step_pods) {
    if (p->value.step) in.steps.push_back(*p->value.step);
  }
  for (const auto& j : step_jobs) in.steps.push_back(j->value);
  for (const auto& c : step_results) in.steps.push_back(c->value);
  executor_.ForgetPods(live);
  in.pdb_blocked = executor_.PdbBlocked(now, options_.config.eviction_retry);

  BuiltFleet fleet = BuildFleetView(in, options_.config);
  for (const std::string& problem : fleet.problems) spdlog::error("remediation: {}", problem);
  const r::Plan plan = r::Decide(fleet.view, options_.config, now);
  const int failures = executor_.Apply(plan, options_.config, by_name, now);

  if (!options_.config.dry_run) CollectStepObjects(fleet.view);

  RemediatorStats snapshot;
  {
    std::lock_guard lock(mu_);
    ++stats_.reconciles;
    stats_.nodes_by_state.clear();
    for (const r::NodeView& n : fleet.view.nodes) {
      ++stats_.nodes_by_state[std::string(r::StateName(n.record.state))];
    }
    stats_.problems = fleet.problems;
    snapshot = stats_;
  }
  snapshot.execution = executor_.Stats();
  if (metrics_ != nullptr) metrics_->Update(snapshot);
  std::optional<core::Time> due = plan.requeue_at;
  // A failed action is tried again soon, not only on the next change.
  if (failures > 0)
    due = std::min(due.value_or(now + std::chrono::seconds(5)), now + std::chrono::seconds(5));
  return due;
}

void Remediator::CollectStepObjects(const r::FleetView& view) {
  std::map<std::string, std::string> open;  // node -> its open incident ("" when none)
  for (const r::NodeView& n : view.nodes) open[n.name] = n.record.incident;
  std::set<std::string> known_nodes;
  for (const auto& n : nodes_.indexer().List()) known_nodes.insert(n->value.name);
  const auto over = [&](const StepRef& ref) {
    if (known_nodes.count(ref.node) == 0) return true;  // the node is gone
    auto it = open.find(ref.node);
    // A node left out of the view (an unreadable record) keeps its objects.
    return it != open.end() && it->second != ref.incident;
  };
  std::set<std::string> present;
  const auto collect = [&](const kubeclient::Resource& resource, const std::string& name,
                           const StepRef& ref) {
    const std::string key = resource.plural + "/" + name;
    present.insert(key);
    if (!over(ref) || collected_.count(key) > 0) return;
    kubeclient::DeleteOptions options;
    options.propagation_policy = "Background";  // a Job's pods go with it
    auto deleted = client_.Delete(resource, options_.executor.pods.namespace_name, name, options);
    if (deleted.ok() || deleted.Is(kubeclient::ApiReason::kNotFound)) {
      collected_.insert(key);
      spdlog::info("remediation: deleted {} {} of closed incident {} on {}", resource.plural, name,
                   ref.incident, ref.node);
    } else {
      spdlog::warn("remediation: cannot delete {} {}: {}", resource.plural, name,
                   deleted.error().Describe());
    }
  };
  for (const auto& p : step_pods_.indexer().List()) {
    if (p->value.step) collect(kubeclient::resources::Pods(), p->name, p->value.step->ref);
  }
  for (const auto& j : step_jobs_.indexer().List()) {
    collect(kubeclient::resources::Jobs(), j->name, j->value.ref);
  }
  for (const auto& c : step_results_.indexer().List()) {
    collect(kubeclient::resources::ConfigMaps(), c->name, c->value.ref);
  }
  std::erase_if(collected_, [&](const std::string& key) { return present.count(key) == 0; });
}

}  // namespace quotient::remediator
