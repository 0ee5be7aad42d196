#include "kubeclient/leader_election.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <condition_variable>
#include <initializer_list>
#include <thread>

#include "kube/value.h"
#include "kubeclient/micro_time.h"

namespace quotient::kubeclient {
namespace {

// The value at `path` below `root` (mappings only), or nullptr.
const kube::Value* Path(const kube::Value& root, std::initializer_list<const char*> path) {
  const kube::Value* at = &root;
  for (const char* key : path) {
    at = at->Find(key);
    if (at == nullptr) return nullptr;
  }
  return at;
}

// Waits `period` or until `stop`; returns false if stopped.
bool SleepUnlessStopped(const std::stop_token& stop, std::chrono::milliseconds period) {
  std::mutex mu;
  std::condition_variable_any cv;
  std::unique_lock lock(mu);
  return !cv.wait_for(lock, stop, period, [] { return false; }) && !stop.stop_requested();
}

}  // namespace

Status ValidateLeaderElectionConfig(const LeaderElectionConfig& c) {
  if (c.identity.empty()) return Status::Error("leader election: identity: must not be empty");
  if (c.lease_name.empty()) return Status::Error("leader election: lease name: must not be empty");
  if (c.lease_duration <= c.renew_deadline) {
    return Status::Error("leader election: leaseDuration must be greater than renewDeadline");
  }
  // renewDeadline > JitterFactor (1.2) x retryPeriod, in integers.
  if (c.renew_deadline * 10 <= c.retry_period * 12) {
    return Status::Error("leader election: renewDeadline must be greater than 1.2 x retryPeriod");
  }
  return Status::Ok();
}

Result<LeaseRecord> ParseLease(const std::string& json) {
  using R = Result<LeaseRecord>;
  Result<kube::Value> lease = kube::ParseJson(json);
  if (!lease.ok() || !lease->is_mapping()) return R::Error("Lease: not a JSON object");
  LeaseRecord record;
  if (const kube::Value* rv = Path(*lease, {"metadata", "resourceVersion"})) {
    record.resource_version = rv->text();
  }
  const kube::Value* spec = lease->Find("spec");
  if (spec == nullptr || spec->is_null()) return record;
  if (!spec->is_mapping()) return R::Error("Lease: spec: expected an object");
  for (auto [field, out] :
       {std::pair{"holderIdentity", &record.holder}, std::pair{"acquireTime", &record.acquire_time},
        std::pair{"renewTime", &record.renew_time}}) {
    const kube::Value* v = spec->Find(field);
    if (v == nullptr || v->is_null()) continue;
    if (v->type() != kube::Value::Type::kString) {
      return R::Error(std::string("Lease: spec.") + field + ": expected a string");
    }
    *out = v->text();
  }
  for (auto [field, out] : {std::pair{"leaseDurationSeconds", &record.lease_duration_seconds},
                            std::pair{"leaseTransitions", &record.lease_transitions}}) {
    const kube::Value* v = spec->Find(field);
    if (v == nullptr || v->is_null()) continue;
    const std::string& text = v->text();
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
    if (v->type() != kube::Value::Type::kNumber || error != std::errc() ||
        end != text.data() + text.size()) {
      return R::Error(std::string("Lease: spec.") + field + ": expected an integer");
    }
  }
  return record;
}

LeaderElector::LeaderElector(Client& client, LeaderElectionConfig config, SteadyNow steady_now,
                             WallNow wall_now)
    : client_(client),
      config_(std::move(config)),
      steady_now_(std::move(steady_now)),
      wall_now_(std::move(wall_now)) {
  if (!steady_now_) steady_now_ = [] { return std::chrono::steady_clock::now(); };
  if (!wall_now_) wall_now_ = [] { return std::chrono::system_clock::now(); };
}

std::string LeaderElector::LeaseJson(const LeaseRecord& r) const {
  nlohmann::json lease = {
      {"apiVersion", "coordination.k8s.io/v1"},
      {"kind", "Lease"},
      {"metadata", {{"name", config_.lease_name}, {"namespace", config_.namespace_name}}},
      {"spec",
       {{"holderIdentity", r.holder},
        {"leaseDurationSeconds", r.lease_duration_seconds},
        {"acquireTime", r.acquire_time},
        {"renewTime", r.renew_time},
        {"leaseTransitions", r.lease_transitions}}}};
  if (!r.resource_version.empty()) lease["metadata"]["resourceVersion"] = r.resource_version;
  return lease.dump();
}

ApiResult<bool> LeaderElector::TryAcquireOrRenew() {
  const Resource leases = resources::Leases();
  std::string now_text = FormatMicroTime(wall_now_());
  LeaseRecord desired;
  desired.holder = config_.identity;
  desired.lease_duration_seconds = config_.lease_duration.count();
  desired.acquire_time = now_text;
  desired.renew_time = now_text;

  ApiResult<RawObject> current = client_.Get(leases, config_.namespace_name, config_.lease_name);
  if (current.Is(ApiReason::kNotFound)) {
    ApiResult<RawObject> created =
        client_.Create(leases, config_.namespace_name, LeaseJson(desired));
    std::lock_guard lock(mu_);
    if (!created.ok()) {
      leader_ = false;
      if (created.Is(ApiReason::kAlreadyExists)) return false;  // lost the race to create
      return created.error();
    }
    desired.resource_version = created->resource_version;
    observed_ = desired;
    observed_at_ = steady_now_();
    leader_ = true;
    return true;
  }
  if (!current.ok()) return current.error();
  Result<LeaseRecord> record = ParseLease(current->json);
  if (!record.ok()) return DecodeError(record.message());

  auto now = steady_now_();
  {
    std::lock_guard lock(mu_);
    // The record changed since we last looked: restart the expiry clock from now.
    if (!observed_ || observed_->resource_version != record->resource_version) {
      observed_ = *record;
      observed_at_ = now;
    }
    bool held_by_other = !record->holder.empty() && record->holder != config_.identity;
    bool unexpired = now - observed_at_ < std::chrono::seconds(record->lease_duration_seconds);
    if (held_by_other && unexpired) {
      leader_ = false;
      return false;
    }
  }
  if (record->holder == config_.identity) {
    desired.acquire_time = record->acquire_time;
    desired.lease_transitions = record->lease_transitions;
  } else {
    desired.lease_transitions = record->lease_transitions + 1;
  }
  desired.resource_version = record->resource_version;
  ApiResult<RawObject> written =
      client_.Update(leases, config_.namespace_name, config_.lease_name, LeaseJson(desired));
  std::lock_guard lock(mu_);
  if (!written.ok()) {
    leader_ = false;
    if (written.Is(ApiReason::kConflict)) return false;  // someone else wrote first
    return written.error();
  }
  desired.resource_version = written->resource_version;
  observed_ = desired;
  observed_at_ = steady_now_();
  leader_ = true;
  return true;
}

ApiStatus LeaderElector::Release() {
  LeaseRecord released;
  {
    std::lock_guard lock(mu_);
    if (!leader_ || !observed_) return Success();
    released = *observed_;
    leader_ = false;
  }
  released.holder.clear();
  released.lease_duration_seconds = 1;
  std::string now_text = FormatMicroTime(wall_now_());
  released.renew_time = now_text;
  released.acquire_time = now_text;
  ApiResult<RawObject> written = client_.Update(resources::Leases(), config_.namespace_name,
                                                config_.lease_name, LeaseJson(released));
  if (!written.ok()) return written.error();
  return Success();
}

bool LeaderElector::IsLeader() const {
  std::lock_guard lock(mu_);
  return leader_;
}

bool LeaderElector::Run(std::stop_token stop, const std::function<void(std::stop_token)>& lead) {
  // Campaign.
  for (;;) {
    if (stop.stop_requested()) return true;
    ApiResult<bool> acquired = TryAcquireOrRenew();
    if (acquired.ok() && *acquired) break;
    if (!SleepUnlessStopped(stop, config_.retry_period)) return true;
  }
  // Lead, renewing in this thread.
  std::stop_source leading;
  std::jthread worker([&lead, token = leading.get_token()] { lead(token); });
  auto last_renew = steady_now_();
  bool lost = false;
  while (SleepUnlessStopped(stop, config_.retry_period)) {
    ApiResult<bool> renewed = TryAcquireOrRenew();
    if (renewed.ok() && *renewed) {
      last_renew = steady_now_();
      continue;
    }
    // A renewal that fails outright (another holder, Conflict) means it is over; a failure to
    // reach the server is retried until the renew deadline.
    if ((renewed.ok() && !*renewed) || steady_now_() - last_renew >= config_.renew_deadline) {
      lost = true;
      break;
    }
  }
  leading.request_stop();
  worker.join();
  {
    std::lock_guard lock(mu_);
    if (lost) leader_ = false;
  }
  if (!lost && config_.release_on_cancel) (void)Release();
  return !lost;
}

}  // namespace quotient::kubeclient
