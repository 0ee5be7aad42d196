// What every integration test shares: the one harness process of this test binary, clients for
// its two identities, and small helpers (a fresh namespace per test, waiting for a condition).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "harness_process.h"
#include "kubeclient/client.h"
#include "kubeclient/client_factory.h"

namespace quotient::k8s_integration {

HarnessProcess& Harness();

// system:masters, by client certificate. `qps` 0 = unthrottled (tests that create thousands).
std::unique_ptr<kubeclient::Client> AdminClient(int64_t qps = 0);
// system:serviceaccount:quotient:scheduler, by bearer token; no RBAC grants unless a test adds
// them.
std::unique_ptr<kubeclient::Client> SchedulerClient();
kubeclient::ConnectionConfig AdminConnection();

// Creates namespace "it-<base>-<n>" and waits until its default ServiceAccount exists (pods are
// refused before that); returns the name.
std::string CreateNamespace(kubeclient::Client& client, const std::string& base);

// Polls `done` every 50 ms until it is true or `timeout` passes; returns the last answer.
bool WaitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout);

// A minimal pod JSON (one container, optional node, labels as a JSON object text).
std::string PodJson(const std::string& name, const std::string& labels_json = "{}");
// A fake node the harness's node simulator (kwok) keeps Ready.
std::string FakeNodeJson(const std::string& name);

// A JSON string field of an object's text: path "status.phase" (objects only, no arrays).
std::string JsonField(const std::string& json, const std::string& dotted_path);

// A plain HTTP GET (the scheduler's ops endpoints); status 0 when nothing answered.
struct HttpAnswer {
  long status = 0;
  std::string body;
};
HttpAnswer HttpGet(const std::string& url);

}  // namespace quotient::k8s_integration
