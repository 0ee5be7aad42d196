// `quotient podgrouper` end to end on the real API server: the binary runs as a process against
// the harness, whose controllers make the pods of Deployments, Jobs and StatefulSets; framework
// objects (CRDs from framework-crds/) get their pods from the tests, with owner references as
// each operator sets them. With the scheduler running too, a framework's pods are scheduled as
// one gang.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::Resource;
using kubeclient::resources::PodGroups;
using kubeclient::resources::Pods;

Resource Deployments() { return {"apps", "v1", "deployments", true}; }
Resource StatefulSets() { return {"apps", "v1", "statefulsets", true}; }
Resource PyTorchJobs() { return {"kubeflow.org", "v1", "pytorchjobs", true}; }
Resource RayClusters() { return {"ray.io", "v1", "rayclusters", true}; }
Resource JobSets() { return {"jobset.x-k8s.io", "v1alpha2", "jobsets", true}; }
Resource LeaderWorkerSets() { return {"leaderworkerset.x-k8s.io", "v1", "leaderworkersets", true}; }

nlohmann::json OwnerRef(const nlohmann::json& owner) {
  return {{{"apiVersion", owner["apiVersion"]},
           {"kind", owner["kind"]},
           {"name", owner["metadata"]["name"]},
           {"uid", owner["metadata"]["uid"]},
           {"controller", true}}};
}

nlohmann::json PodTemplate(const std::string& scheduler, const nlohmann::json& labels) {
  return {{"metadata", {{"labels", labels}}},
          {"spec",
           {{"schedulerName", scheduler},
            {"terminationGracePeriodSeconds", 0},
            {"containers",
             {{{"name", "main"},
               {"image", "busybox"},
               {"resources", {{"requests", {{"cpu", "100m"}, {"memory", "64Mi"}}}}}}}}}}};
}

// A pod the way an operator makes it: owned by `owner` (its JSON as created), with `labels`.
std::string OwnedPod(const std::string& name, const std::string& scheduler,
                     const nlohmann::json& owner, const nlohmann::json& labels, int gpus = 0) {
  nlohmann::json pod = nlohmann::json::parse(PodJson(name, labels.dump()));
  pod["spec"]["schedulerName"] = scheduler;
  if (gpus > 0) {
    pod["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = std::to_string(gpus);
  }
  pod["metadata"]["ownerReferences"] = OwnerRef(owner);
  return pod.dump();
}

nlohmann::json Created(kubeclient::Client& client, const Resource& resource, const std::string& ns,
                       const nlohmann::json& object) {
  auto created = client.Create(resource, ns, object.dump());
  EXPECT_TRUE(created.ok()) << (created.ok() ? "" : created.error().Describe());
  return created.ok() ? nlohmann::json::parse(created->json) : nlohmann::json::object();
}

// The PodGroup once it exists, else null after `timeout`.
nlohmann::json WaitForPodGroup(
    kubeclient::Client& client, const std::string& ns, const std::string& name,
    const std::function<bool(const nlohmann::json&)>& ready = [](const nlohmann::json&) {
      return true;
    }) {
  nlohmann::json found;
  WaitFor(
      [&] {
        auto pg = client.Get(PodGroups(), ns, name);
        if (!pg.ok()) return false;
        found = nlohmann::json::parse(pg->json);
        return ready(found);
      },
      std::chrono::seconds(30));
  return found;
}

// The pod's pod-group-name annotation once set (else "" after the timeout).
std::string WaitForAnnotation(kubeclient::Client& client, const std::string& ns,
                              const std::string& pod) {
  std::string name;
  WaitFor(
      [&] {
        auto p = client.Get(Pods(), ns, pod);
        if (p.ok()) name = JsonField(p->json, "metadata.annotations.pod-group-name");
        return !name.empty();
      },
      std::chrono::seconds(30));
  return name;
}

std::vector<nlohmann::json> PodsOf(kubeclient::Client& client, const std::string& ns) {
  std::vector<nlohmann::json> pods;
  auto list = client.List(Pods(), ns, {});
  if (list.ok()) {
    for (const auto& item : list->items) pods.push_back(nlohmann::json::parse(item.json));
  }
  return pods;
}

TEST(PodGrouperE2ETest, GroupsThePodsOfBuiltInControllers) {
  auto admin = AdminClient();
  const std::string ns = CreateNamespace(*admin, "pg-builtin");
  const std::string scheduler = "quotient-pg-builtin";
  PodGrouperProcess grouper(scheduler);

  const nlohmann::json deployment =
      Created(*admin, Deployments(), ns,
              {{"apiVersion", "apps/v1"},
               {"kind", "Deployment"},
               {"metadata", {{"name", "web"}, {"labels", {{"kai.scheduler/queue", "serving"}}}}},
               {"spec",
                {{"replicas", 2},
                 {"selector", {{"matchLabels", {{"app", "web"}}}}},
                 {"template", PodTemplate(scheduler, {{"app", "web"}})}}}});
  const nlohmann::json job =
      Created(*admin, kubeclient::resources::Jobs(), ns,
              {{"apiVersion", "batch/v1"},
               {"kind", "Job"},
               {"metadata", {{"name", "etl"}}},
               {"spec",
                {{"parallelism", 2},
                 {"completions", 2},
                 {"template", [&] {
                    nlohmann::json t = PodTemplate(scheduler, {{"app", "etl"}});
                    t["spec"]["restartPolicy"] = "Never";
                    return t;
                  }()}}}});
  const nlohmann::json sts = Created(*admin, StatefulSets(), ns,
                                     {{"apiVersion", "apps/v1"},
                                      {"kind", "StatefulSet"},
                                      {"metadata", {{"name", "db"}}},
                                      {"spec",
                                       {{"replicas", 2},
                                        {"serviceName", "db"},
                                        {"podManagementPolicy", "Parallel"},
                                        {"selector", {{"matchLabels", {{"app", "db"}}}}},
                                        {"template", PodTemplate(scheduler, {{"app", "db"}})}}}});

  // Every controller's pods appear (6) and each is named into its group.
  ASSERT_TRUE(WaitFor([&] { return PodsOf(*admin, ns).size() == 6; }, std::chrono::seconds(30)));
  for (const nlohmann::json& pod : PodsOf(*admin, ns)) {
    const std::string name = pod["metadata"]["name"];
    const std::string app = pod["metadata"]["labels"]["app"];
    const std::string group = WaitForAnnotation(*admin, ns, name);
    if (app == "web") {
      // Deployment: a group of one per pod, owned by the pod, inference priority.
      EXPECT_EQ(group, "pg-" + name + "-" + pod["metadata"]["uid"].get<std::string>());
      const nlohmann::json pg = WaitForPodGroup(*admin, ns, group);
      EXPECT_EQ(pg["spec"]["priorityClassName"], "inference");
      EXPECT_EQ(pg["spec"]["queue"], "serving");
      EXPECT_EQ(pg["metadata"]["ownerReferences"][0]["kind"], "Pod");
    } else if (app == "etl") {
      // Job: a group of one per pod, named after the pod and the Job.
      EXPECT_EQ(group, "pg-" + name + "-" + job["metadata"]["uid"].get<std::string>());
      const nlohmann::json pg = WaitForPodGroup(*admin, ns, group);
      EXPECT_EQ(pg["spec"]["minMember"], 1);
      EXPECT_EQ(pg["spec"]["priorityClassName"], "train");
      EXPECT_EQ(pg["metadata"]["ownerReferences"][0]["kind"], "Job");
    } else {
      // StatefulSet: one group for all its pods.
      EXPECT_EQ(group, "pg-db-" + sts["metadata"]["uid"].get<std::string>());
      const nlohmann::json pg = WaitForPodGroup(*admin, ns, group);
      EXPECT_EQ(pg["spec"]["queue"], "default-queue");
      EXPECT_EQ(pg["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    }
  }
  (void)deployment;
  EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
}

nlohmann::json PyTorchJobJson(const std::string& name, int workers) {
  return {{"apiVersion", "kubeflow.org/v1"},
          {"kind", "PyTorchJob"},
          {"metadata", {{"name", name}, {"labels", {{"kai.scheduler/queue", "pg-ml"}}}}},
          {"spec",
           {{"pytorchReplicaSpecs",
             {{"Master", {{"replicas", 1}}}, {"Worker", {{"replicas", workers}}}}}}}};
}

TEST(PodGrouperE2ETest, APyTorchJobIsOneGangWhoseSizeFollowsTheJob) {
  auto admin = AdminClient();
  const std::string ns = CreateNamespace(*admin, "pg-pytorch");
  const std::string scheduler = "quotient-pg-pytorch";
  PodGrouperProcess grouper(scheduler);
  const nlohmann::json job = Created(*admin, PyTorchJobs(), ns, PyTorchJobJson("train", 3));
  const std::string uid = job["metadata"]["uid"];
  ASSERT_TRUE(admin
                  ->Create(Pods(), ns,
                           OwnedPod("train-master-0", scheduler, job,
                                    {{"training.kubeflow.org/replica-type", "master"}}))
                  .ok());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             OwnedPod("train-worker-" + std::to_string(i), scheduler, job,
                                      {{"training.kubeflow.org/replica-type", "worker"}}))
                    .ok());
  }
  const std::string name = "pg-train-" + uid;
  const nlohmann::json pg = WaitForPodGroup(*admin, ns, name);
  ASSERT_FALSE(pg.is_null());
  EXPECT_EQ(pg["spec"]["minMember"], 4);
  EXPECT_EQ(pg["spec"]["queue"], "pg-ml");
  EXPECT_EQ(pg["spec"]["priorityClassName"], "train");
  EXPECT_EQ(pg["metadata"]["ownerReferences"][0]["kind"], "PyTorchJob");
  const nlohmann::json subs = {{{"name", "master"}, {"minMember", 1}},
                               {{"name", "worker"}, {"minMember", 3}}};
  EXPECT_EQ(pg["spec"]["subGroups"], subs);
  EXPECT_EQ(WaitForAnnotation(*admin, ns, "train-worker-2"), name);
  auto worker = admin->Get(Pods(), ns, "train-worker-2");
  ASSERT_TRUE(worker.ok());
  // (The label's key has dots: read it from the JSON, not with JsonField's dotted path.)
  EXPECT_EQ(
      nlohmann::json::parse(worker->json)["metadata"]["labels"]["kai.scheduler/subgroup-name"],
      "worker");

  // Scaled to 5 workers (and its queue label changed): the gang grows, the queue stays.
  ASSERT_TRUE(admin
                  ->Patch(PyTorchJobs(), ns, "train", kubeclient::PatchType::kMerge,
                          R"({"metadata":{"labels":{"kai.scheduler/queue":"elsewhere"}},)"
                          R"("spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":5}}}})")
                  .ok());
  const nlohmann::json grown = WaitForPodGroup(
      *admin, ns, name, [](const nlohmann::json& g) { return g["spec"]["minMember"] == 6; });
  EXPECT_EQ(grown["spec"]["minMember"], 6);
  EXPECT_EQ(grown["spec"]["queue"], "pg-ml");
  // Scaled down to 1 worker: the gang shrinks with it.
  ASSERT_TRUE(admin
                  ->Patch(PyTorchJobs(), ns, "train", kubeclient::PatchType::kMerge,
                          R"({"spec":{"pytorchReplicaSpecs":{"Worker":{"replicas":1}}}})")
                  .ok());
  const nlohmann::json shrunk = WaitForPodGroup(
      *admin, ns, name, [](const nlohmann::json& g) { return g["spec"]["minMember"] == 2; });
  EXPECT_EQ(shrunk["spec"]["minMember"], 2);
  const nlohmann::json shrunk_subs = {{{"name", "master"}, {"minMember", 1}},
                                      {{"name", "worker"}, {"minMember", 1}}};
  EXPECT_EQ(shrunk["spec"]["subGroups"], shrunk_subs);
  EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
}

TEST(PodGrouperE2ETest, APodOwnedByAKindThatIsNotInstalledIsAGroupOfOne) {
  auto admin = AdminClient();
  const std::string ns = CreateNamespace(*admin, "pg-unknown");
  const std::string scheduler = "quotient-pg-unknown";
  PodGrouperProcess grouper(scheduler);
  const nlohmann::json widget = {{"apiVersion", "example.com/v1"},
                                 {"kind", "Widget"},
                                 {"metadata", {{"name", "gizmo"}, {"uid", "0000-widget"}}}};
  const nlohmann::json pod = Created(
      *admin, Pods(), ns,
      nlohmann::json::parse(OwnedPod("gizmo-1", scheduler, widget, nlohmann::json::object())));
  const std::string uid = pod["metadata"]["uid"];
  EXPECT_EQ(WaitForAnnotation(*admin, ns, "gizmo-1"), "pg-gizmo-1-" + uid);
  const nlohmann::json pg = WaitForPodGroup(*admin, ns, "pg-gizmo-1-" + uid);
  EXPECT_EQ(pg["metadata"]["ownerReferences"][0]["kind"], "Pod");
  EXPECT_TRUE(admin->Delete(kubeclient::resources::Namespaces(), "", ns).ok());
}

// Both families end to end: the scheduler waits for the grouper's PodGroups
// (--wait-for-pod-grouper), then binds each framework's pods together, or none of them.
TEST(PodGrouperE2ETest, FrameworkPodsAreScheduledAsGangs) {
  TwoNodeCluster cluster("pgang", {{"pgang-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-pgang";
  SchedulerProcess process(scheduler, "", {"--wait-for-pod-grouper"});
  PodGrouperProcess grouper(scheduler);
  const nlohmann::json queue_label = {{"kai.scheduler/queue", "pgang-team"}};

  // A PyTorchJob of 1 + 3 pods of 4 GPUs: 16 GPUs, both nodes.
  nlohmann::json pytorch = PyTorchJobJson("fits", 3);
  pytorch["metadata"]["labels"] = queue_label;
  const nlohmann::json job = Created(*admin, PyTorchJobs(), ns, pytorch);
  for (int i = 0; i < 4; ++i) {
    const std::string type = i == 0 ? "master" : "worker";
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             OwnedPod("fits-" + std::to_string(i), scheduler, job,
                                      {{"training.kubeflow.org/replica-type", type}}, 4))
                    .ok());
  }
  EXPECT_TRUE(WaitFor(
      [&] {
        for (int i = 0; i < 4; ++i) {
          if (NodeOf(*admin, ns, "fits-" + std::to_string(i)).empty()) return false;
        }
        return true;
      },
      std::chrono::seconds(60)))
      << process.Log();

  // A RayCluster of a head and 2 workers of 8 GPUs: it needs 16 more GPUs, none are free, so
  // none of its pods is bound, not even the head, which needs no GPU.
  nlohmann::json ray = {
      {"apiVersion", "ray.io/v1"},
      {"kind", "RayCluster"},
      {"metadata", {{"name", "ray"}, {"labels", queue_label}}},
      {"spec",
       {{"headGroupSpec", nlohmann::json::object()},
        {"workerGroupSpecs", {{{"groupName", "gpu"}, {"replicas", 2}, {"minReplicas", 2}}}}}}};
  const nlohmann::json cluster_object = Created(*admin, RayClusters(), ns, ray);
  ASSERT_TRUE(admin
                  ->Create(Pods(), ns,
                           OwnedPod("ray-head", scheduler, cluster_object,
                                    {{"ray.io/node-type", "head"}, {"ray.io/group", "headgroup"}}))
                  .ok());
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(admin
                    ->Create(Pods(), ns,
                             OwnedPod("ray-worker-" + std::to_string(i), scheduler, cluster_object,
                                      {{"ray.io/node-type", "worker"}, {"ray.io/group", "gpu"}}, 8))
                    .ok());
  }
  const std::string ray_group = "pg-ray-" + cluster_object["metadata"]["uid"].get<std::string>();
  const nlohmann::json pg = WaitForPodGroup(*admin, ns, ray_group);
  EXPECT_EQ(pg["spec"]["minMember"], 3);
  EXPECT_EQ(WaitForAnnotation(*admin, ns, "ray-head"), ray_group);
  // A few cycles later, still nothing of it is bound.
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeOf(*admin, ns, "ray-head"), "");
  EXPECT_EQ(NodeOf(*admin, ns, "ray-worker-0"), "");

  // The PyTorchJob is deleted: its pods go, and the RayCluster fits as a whole.
  for (int i = 0; i < 4; ++i) {
    kubeclient::DeleteOptions now;
    now.grace_period_seconds = 0;
    EXPECT_TRUE(admin->Delete(Pods(), ns, "fits-" + std::to_string(i), now).ok());
  }
  EXPECT_TRUE(WaitFor(
      [&] {
        return !NodeOf(*admin, ns, "ray-head").empty() &&
               !NodeOf(*admin, ns, "ray-worker-0").empty() &&
               !NodeOf(*admin, ns, "ray-worker-1").empty();
      },
      std::chrono::seconds(60)))
      << process.Log();
}

// JobSet and LeaderWorkerSet: their pods come from the Jobs and StatefulSets the operators make
// (made here, owned the way the operators own them), through the test cluster's controllers.
TEST(PodGrouperE2ETest, JobSetAndLeaderWorkerSetPodsAreScheduledAsGangs) {
  TwoNodeCluster cluster("pgset", {{"pgset-team", -1}});
  auto& admin = cluster.admin;
  const std::string& ns = cluster.ns;
  const std::string scheduler = "quotient-pgset";
  SchedulerProcess process(scheduler, "", {"--wait-for-pod-grouper"});
  PodGrouperProcess grouper(scheduler);
  const nlohmann::json queue_label = {{"kai.scheduler/queue", "pgset-team"}};
  const auto gpu_template = [&](nlohmann::json labels) {
    nlohmann::json t = PodTemplate(scheduler, std::move(labels));
    t["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "8";
    return t;
  };

  // A JobSet whose replicated job `workers` runs 2 pods of 8 GPUs: both nodes, together.
  const nlohmann::json jobset =
      Created(*admin, JobSets(), ns,
              {{"apiVersion", "jobset.x-k8s.io/v1alpha2"},
               {"kind", "JobSet"},
               {"metadata", {{"name", "js"}, {"labels", queue_label}}},
               {"spec",
                {{"replicatedJobs",
                  {{{"name", "workers"},
                    {"replicas", 1},
                    {"template", {{"spec", {{"parallelism", 2}, {"completions", 2}}}}}}}}}}});
  nlohmann::json job_template =
      gpu_template({{"jobset.sigs.k8s.io/replicatedjob-name", "workers"}});
  job_template["spec"]["restartPolicy"] = "Never";
  Created(*admin, kubeclient::resources::Jobs(), ns,
          {{"apiVersion", "batch/v1"},
           {"kind", "Job"},
           {"metadata", {{"name", "js-workers-0"}, {"ownerReferences", OwnerRef(jobset)}}},
           {"spec", {{"parallelism", 2}, {"completions", 2}, {"template", job_template}}}});
  const std::string js_group = "pg-js-" + jobset["metadata"]["uid"].get<std::string>() + "-workers";
  const nlohmann::json js_pg = WaitForPodGroup(*admin, ns, js_group);
  EXPECT_EQ(js_pg["spec"]["minMember"], 2);
  EXPECT_EQ(js_pg["spec"]["queue"], "pgset-team");
  EXPECT_TRUE(WaitFor(
      [&] {
        int bound = 0;
        for (const nlohmann::json& pod : PodsOf(*admin, ns)) {
          bound += pod["spec"].contains("nodeName") ? 1 : 0;
        }
        return bound == 2;
      },
      std::chrono::seconds(60)))
      << process.Log();

  // A LeaderWorkerSet group of 3 (a leader and 2 workers, 8 GPUs each): nothing is free, so
  // none of it is bound, the leader included.
  const nlohmann::json lws =
      Created(*admin, LeaderWorkerSets(), ns,
              {{"apiVersion", "leaderworkerset.x-k8s.io/v1"},
               {"kind", "LeaderWorkerSet"},
               {"metadata", {{"name", "lws"}, {"labels", queue_label}}},
               {"spec", {{"replicas", 1}, {"leaderWorkerTemplate", {{"size", 3}}}}}});
  const nlohmann::json group_labels = {{"leaderworkerset.sigs.k8s.io/name", "lws"},
                                       {"leaderworkerset.sigs.k8s.io/group-index", "0"}};
  nlohmann::json leader_labels = group_labels;
  leader_labels["leaderworkerset.sigs.k8s.io/worker-index"] = "0";
  Created(*admin, StatefulSets(), ns,
          {{"apiVersion", "apps/v1"},
           {"kind", "StatefulSet"},
           {"metadata", {{"name", "lws"}, {"ownerReferences", OwnerRef(lws)}}},
           {"spec",
            {{"replicas", 1},
             {"serviceName", "lws"},
             {"selector", {{"matchLabels", leader_labels}}},
             {"template", gpu_template(leader_labels)}}}});
  nlohmann::json leader;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto p = admin->Get(Pods(), ns, "lws-0");
        if (p.ok()) leader = nlohmann::json::parse(p->json);
        return p.ok();
      },
      std::chrono::seconds(30)));
  nlohmann::json worker_labels = group_labels;
  worker_labels["leaderworkerset.sigs.k8s.io/worker-index"] = "1";
  Created(*admin, StatefulSets(), ns,
          {{"apiVersion", "apps/v1"},
           {"kind", "StatefulSet"},
           {"metadata", {{"name", "lws-0"}, {"ownerReferences", OwnerRef(leader)}}},
           {"spec",
            {{"replicas", 2},
             {"serviceName", "lws"},
             {"podManagementPolicy", "Parallel"},
             {"selector", {{"matchLabels", worker_labels}}},
             {"template", gpu_template(worker_labels)}}}});
  const std::string lws_group = "pg-lws-" + lws["metadata"]["uid"].get<std::string>() + "-group-0";
  const nlohmann::json lws_pg = WaitForPodGroup(*admin, ns, lws_group);
  EXPECT_EQ(lws_pg["spec"]["minMember"], 3);
  const nlohmann::json subs = {{{"name", "leader"}, {"minMember", 1}},
                               {{"name", "workers"}, {"minMember", 2}}};
  EXPECT_EQ(lws_pg["spec"]["subGroups"], subs);
  EXPECT_EQ(WaitForAnnotation(*admin, ns, "lws-0-1"), lws_group);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(NodeOf(*admin, ns, "lws-0"), "");
  EXPECT_EQ(NodeOf(*admin, ns, "lws-0-0"), "");
}

}  // namespace
}  // namespace quotient::k8s_integration
