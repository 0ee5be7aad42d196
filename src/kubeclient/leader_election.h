// Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm, so that of
// several scheduler replicas exactly one writes at a time:
//   1. GET the lease; absent -> create it holding it ourselves.
//   2. Held by someone else and, by OUR clock, changed less than leaseDurationSeconds ago ->
//      not leader. (Expiry is measured from when we last saw the record change, not from its
//      renewTime, so clock skew between replicas does not matter.)
//   3. Otherwise (ours, expired, or released) -> PUT with the read resourceVersion; a Conflict
//      means another replica won the race.
// The leader renews every retry period; if no renewal succeeds within the renew deadline it
// stops leading (the caller must stop writing). On a clean stop the lease is released (empty
// holder, 1 s duration) so a successor need not wait out the lease.
// Defaults: lease 15 s, renew deadline 10 s, retry 2 s (component-base).
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>

#include "kubeclient/client.h"

namespace quotient::kubeclient {

struct LeaderElectionConfig {
  std::string namespace_name;
  std::string lease_name;
  std::string identity;  // unique per replica: host name + a random suffix
  std::chrono::seconds lease_duration{15};
  std::chrono::seconds renew_deadline{10};
  std::chrono::seconds retry_period{2};
  bool release_on_cancel = true;
};

// Checks LeaseDuration > RenewDeadline > 1.2 x RetryPeriod and a non-empty identity.
Status ValidateLeaderElectionConfig(const LeaderElectionConfig& config);

struct LeaseRecord {
  std::string holder;
  int64_t lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime text, kept as written
  std::string renew_time;
  int64_t lease_transitions = 0;
  std::string resource_version;
};

// Reads a Lease object's spec; the error names the field.
Result<LeaseRecord> ParseLease(const std::string& json);

class LeaderElector {
 public:
  using SteadyNow = std::function<std::chrono::steady_clock::time_point()>;
  using WallNow = std::function<std::chrono::system_clock::time_point()>;
  LeaderElector(Client& client, LeaderElectionConfig config, SteadyNow steady_now = {},
                WallNow wall_now = {});

  // One step of the algorithm: true when we hold the lease afterwards.
  ApiResult<bool> TryAcquireOrRenew();
  // Gives the lease up if we hold it.
  ApiStatus Release();

  // Campaigns until leading, then calls `lead` on a new thread with a stop token that fires when
  // leadership is lost or `stop` is requested, renews until then, joins `lead`, releases (if
  // configured and stopped cleanly) and returns. Returns false if leadership was lost, true if
  // `stop` ended it (or stopped the campaign).
  bool Run(std::stop_token stop, const std::function<void(std::stop_token)>& lead);

  bool IsLeader() const;

 private:
  std::string LeaseJson(const LeaseRecord& record) const;

  Client& client_;
  LeaderElectionConfig config_;
  SteadyNow steady_now_;
  WallNow wall_now_;
  mutable std::mutex mu_;
  std::optional<LeaseRecord> observed_;
  std::chrono::steady_clock::time_point observed_at_{};
  bool leader_ = false;
};

}  // namespace quotient::kubeclient
