// `quotient podgrouper` on every framework kind of KAI's table that podgrouper_e2e_test does not
// already cover, against the real API server: the framework objects (minimal CRDs from
// framework-crds/) and the objects their operators make in between, with owner references as
// the operators set them; pods from the test cluster's Job, StatefulSet, Deployment and
// ReplicaSet controllers where the operator would go through one. For each: the PodGroup's name,
// gang minimum, subgroups, queue and priority class, as docs/pod-grouper.md's table says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "e2e_support.h"

namespace quotient::k8s_integration {
namespace {

using kubeclient::Resource;
using kubeclient::resources::PodGroups;
using kubeclient::resources::Pods;

const Resource kStatefulSets{"apps", "v1", "statefulsets", true};
const Resource kDeployments{"apps", "v1", "deployments", true};
const Resource kCronJobs{"batch", "v1", "cronjobs", true};

// One namespace, the grouper for its scheduler name, and helpers to make objects in it.
class PodGrouperKindsTest : public ::testing::Test {
 protected:
  static constexpr char kScheduler[] = "quotient-pg-kinds";
  static void SetUpTestSuite() {
    admin_ = AdminClient().release();
    ns_ = CreateNamespace(*admin_, "pg-kinds");
    grouper_ = new PodGrouperProcess(kScheduler);
  }
  static void TearDownTestSuite() {
    delete grouper_;
    EXPECT_TRUE(admin_->Delete(kubeclient::resources::Namespaces(), "", ns_).ok());
    delete admin_;
  }

  // Creates `object` (its apiVersion and kind say where) and returns it as the server stored it.
  static nlohmann::json Make(const Resource& resource, nlohmann::json object) {
    auto created = admin_->Create(resource, ns_, object.dump());
    EXPECT_TRUE(created.ok()) << object["kind"] << " "
                              << (created.ok() ? "" : created.error().Describe());
    return created.ok() ? nlohmann::json::parse(created->json) : nlohmann::json::object();
  }
  static nlohmann::json Object(const std::string& api_version, const std::string& kind,
                               const std::string& name, nlohmann::json spec,
                               const nlohmann::json& owner = nullptr) {
    nlohmann::json o = {
        {"apiVersion", api_version},
        {"kind", kind},
        {"metadata", {{"name", name}, {"labels", {{"kai.scheduler/queue", "q-" + name}}}}},
        {"spec", std::move(spec)}};
    if (!owner.is_null()) o["metadata"]["ownerReferences"] = {OwnerOf(owner)};
    return o;
  }
  static nlohmann::json OwnerOf(const nlohmann::json& owner) {
    return {{"apiVersion", owner["apiVersion"]},
            {"kind", owner["kind"]},
            {"name", owner["metadata"]["name"]},
            {"uid", owner["metadata"]["uid"]},
            {"controller", true}};
  }
  static nlohmann::json Template(const nlohmann::json& labels = nlohmann::json::object()) {
    nlohmann::json t = nlohmann::json::parse(PodJson("x", labels.dump()));
    t["metadata"].erase("name");
    t["spec"]["schedulerName"] = kScheduler;
    return t;
  }
  // A pod the operator makes itself, owned by `owner`.
  static void MakePod(const std::string& name, const nlohmann::json& owner,
                      const nlohmann::json& labels = nlohmann::json::object()) {
    nlohmann::json pod = Template(labels);
    pod["metadata"]["name"] = name;
    pod["metadata"]["ownerReferences"] = {OwnerOf(owner)};
    Make(Pods(), pod);
  }
  // The PodGroup named on pod `pod` (waiting for it), checked against the table.
  static void ExpectGroup(const std::string& pod, const std::string& name, int min_member,
                          const std::string& queue, const std::string& priority,
                          const nlohmann::json& sub_groups = nullptr) {
    std::string named;
    WaitFor(
        [&] {
          auto p = admin_->Get(Pods(), ns_, pod);
          if (p.ok()) named = JsonField(p->json, "metadata.annotations.pod-group-name");
          return !named.empty();
        },
        std::chrono::seconds(30));
    EXPECT_EQ(named, name) << pod << "\n" << grouper_->Log();
    auto pg = admin_->Get(PodGroups(), ns_, name);
    ASSERT_TRUE(pg.ok()) << name;
    const nlohmann::json spec = nlohmann::json::parse(pg->json)["spec"];
    EXPECT_EQ(spec["minMember"], min_member) << name;
    EXPECT_EQ(spec["queue"], queue) << name;
    EXPECT_EQ(spec["priorityClassName"], priority) << name;
    if (!sub_groups.is_null()) {
      EXPECT_EQ(spec["subGroups"], sub_groups) << name;
    }
  }
  static std::string Uid(const nlohmann::json& o) { return o["metadata"]["uid"]; }

  static kubeclient::Client* admin_;
  static std::string ns_;
  static PodGrouperProcess* grouper_;
};
kubeclient::Client* PodGrouperKindsTest::admin_ = nullptr;
std::string PodGrouperKindsTest::ns_;
PodGrouperProcess* PodGrouperKindsTest::grouper_ = nullptr;

TEST_F(PodGrouperKindsTest, KubeflowTrainingJobsAreGangsOfAllTheirReplicas) {
  const Resource tf{"kubeflow.org", "v1", "tfjobs", true};
  const Resource xgb{"kubeflow.org", "v1", "xgboostjobs", true};
  const Resource jax{"kubeflow.org", "v1", "jaxjobs", true};
  const Resource mpi{"kubeflow.org", "v2beta1", "mpijobs", true};
  const nlohmann::json tfjob = Make(
      tf, Object("kubeflow.org/v1", "TFJob", "tf",
                 {{"tfReplicaSpecs", {{"PS", {{"replicas", 1}}}, {"Worker", {{"replicas", 2}}}}}}));
  MakePod("tf-worker-0", tfjob, {{"training.kubeflow.org/replica-type", "worker"}});
  ExpectGroup("tf-worker-0", "pg-tf-" + Uid(tfjob), 3, "q-tf", "train");

  const nlohmann::json xgbjob =
      Make(xgb, Object("kubeflow.org/v1", "XGBoostJob", "xgb",
                       {{"xgbReplicaSpecs",
                         {{"Master", {{"replicas", 1}}}, {"Worker", {{"replicas", 3}}}}}}));
  MakePod("xgb-master-0", xgbjob, {{"training.kubeflow.org/replica-type", "master"}});
  ExpectGroup("xgb-master-0", "pg-xgb-" + Uid(xgbjob), 4, "q-xgb", "train");

  const nlohmann::json jaxjob =
      Make(jax, Object("kubeflow.org/v1", "JAXJob", "jax",
                       {{"jaxReplicaSpecs", {{"Worker", {{"replicas", 4}}}}}}));
  MakePod("jax-worker-0", jaxjob, {{"training.kubeflow.org/replica-type", "worker"}});
  ExpectGroup("jax-worker-0", "pg-jax-" + Uid(jaxjob), 4, "q-jax", "train");

  // MPIJob v2beta1: Launcher and Worker replicas (the launcher is created with the workers).
  const nlohmann::json mpijob =
      Make(mpi, Object("kubeflow.org/v2beta1", "MPIJob", "mpi",
                       {{"mpiReplicaSpecs",
                         {{"Launcher", {{"replicas", 1}}}, {"Worker", {{"replicas", 2}}}}}}));
  MakePod("mpi-worker-0", mpijob, {{"training.kubeflow.org/replica-type", "worker"}});
  ExpectGroup("mpi-worker-0", "pg-mpi-" + Uid(mpijob), 3, "q-mpi", "train");
}

TEST_F(PodGrouperKindsTest, AMalformedSpecIsGroupedWithADefaultAndAWarningEvent) {
  // A negative replica count: counted as 1 (the operators' default), and said on the pod.
  const nlohmann::json tfjob = Make(
      {"kubeflow.org", "v1", "tfjobs", true},
      Object("kubeflow.org/v1", "TFJob", "tf-bad",
             {{"tfReplicaSpecs", {{"PS", {{"replicas", 1}}}, {"Worker", {{"replicas", -2}}}}}}));
  MakePod("tf-bad-worker-0", tfjob, {{"training.kubeflow.org/replica-type", "worker"}});
  ExpectGroup("tf-bad-worker-0", "pg-tf-bad-" + Uid(tfjob), 2, "q-tf-bad", "train");
  std::string note;
  EXPECT_TRUE(WaitFor(
      [&] {
        auto events = admin_->List(kubeclient::resources::Events(), ns_, {});
        for (const auto& item :
             events.ok() ? events->items : std::vector<kubeclient::RawObject>{}) {
          const nlohmann::json e = nlohmann::json::parse(item.json);
          if (e.value("reason", "") == "PodGrouperWarning" &&
              e["regarding"].value("name", "") == "tf-bad-worker-0") {
            note = e.value("note", "");
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(30)));
  EXPECT_NE(note.find("TFJob " + ns_ + "/tf-bad: spec.tfReplicaSpecs.Worker.replicas"),
            std::string::npos)
      << note;
}

TEST_F(PodGrouperKindsTest, ANotebookIsAGroupOfOneOfBuildPriority) {
  // The notebook controller makes a StatefulSet of one, owned by the Notebook.
  const nlohmann::json notebook =
      Make({"kubeflow.org", "v1beta1", "notebooks", true},
           Object("kubeflow.org/v1beta1", "Notebook", "nb", nlohmann::json::object()));
  Make(kStatefulSets, Object("apps/v1", "StatefulSet", "nb",
                             {{"replicas", 1},
                              {"serviceName", "nb"},
                              {"selector", {{"matchLabels", {{"notebook-name", "nb"}}}}},
                              {"template", Template({{"notebook-name", "nb"}})}},
                             notebook));
  ExpectGroup("nb-0", "pg-nb-" + Uid(notebook), 1, "q-nb", "build");
}

TEST_F(PodGrouperKindsTest, ATrainJobIsGroupedByTheJobSetItMakes) {
  // Trainer v2: TrainJob -> JobSet -> Job -> pods; the TrainJob only wraps the JobSet.
  const nlohmann::json train = Make(
      {"trainer.kubeflow.org", "v1alpha1", "trainjobs", true},
      Object("trainer.kubeflow.org/v1alpha1", "TrainJob", "trainer", nlohmann::json::object()));
  const nlohmann::json jobset =
      Make({"jobset.x-k8s.io", "v1alpha2", "jobsets", true},
           Object("jobset.x-k8s.io/v1alpha2", "JobSet", "trainer-js",
                  {{"replicatedJobs",
                    {{{"name", "node"},
                      {"replicas", 1},
                      {"template", {{"spec", {{"parallelism", 2}, {"completions", 2}}}}}}}}},
                  train));
  nlohmann::json pods = Template({{"jobset.sigs.k8s.io/replicatedjob-name", "node"}});
  pods["spec"]["restartPolicy"] = "Never";
  Make(kubeclient::resources::Jobs(),
       Object("batch/v1", "Job", "trainer-js-node-0",
              {{"parallelism", 2}, {"completions", 2}, {"template", pods}}, jobset));
  std::string pod;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto list = admin_->List(Pods(), ns_, {"job-name=trainer-js-node-0", "", 500, ""});
        if (list.ok() && !list->items.empty()) pod = list->items[0].name;
        return !pod.empty();
      },
      std::chrono::seconds(30)));
  // The JobSet's queue label, not the TrainJob's: the grouped owner's labels come first.
  ExpectGroup(pod, "pg-trainer-js-" + Uid(jobset) + "-node", 2, "q-trainer-js", "train");
}

TEST_F(PodGrouperKindsTest, RayJobsAndRayServicesAreGroupedWithTheirClusterSpec) {
  const Resource rayjobs{"ray.io", "v1", "rayjobs", true};
  const Resource rayservices{"ray.io", "v1", "rayservices", true};
  const Resource clusters{"ray.io", "v1", "rayclusters", true};
  const nlohmann::json cluster_spec = {
      {"headGroupSpec", nlohmann::json::object()},
      {"workerGroupSpecs", {{{"groupName", "gpu"}, {"replicas", 2}, {"numOfHosts", 2}}}}};
  // RayJob: its cluster's name in status (no status subresource in the test CRD).
  nlohmann::json job = Object("ray.io/v1", "RayJob", "rj", nlohmann::json::object());
  job["status"] = {{"rayClusterName", "rj-cluster"}};
  const nlohmann::json rayjob = Make(rayjobs, job);
  const nlohmann::json rj_cluster =
      Make(clusters, Object("ray.io/v1", "RayCluster", "rj-cluster", cluster_spec, rayjob));
  MakePod("rj-head", rj_cluster, {{"ray.io/group", "headgroup"}, {"ray.io/node-type", "head"}});
  const nlohmann::json subs = {{{"name", "headgroup"}, {"minMember", 1}},
                               {{"name", "gpu"}, {"minMember", 4}}};
  // 1 head + 2 replicas x 2 hosts.
  ExpectGroup("rj-head", "pg-rj-" + Uid(rayjob), 5, "q-rj", "train", subs);

  nlohmann::json service = Object("ray.io/v1", "RayService", "rs", nlohmann::json::object());
  service["status"] = {{"activeServiceStatus", {{"rayClusterName", "rs-cluster"}}}};
  const nlohmann::json rayservice = Make(rayservices, service);
  const nlohmann::json rs_cluster =
      Make(clusters, Object("ray.io/v1", "RayCluster", "rs-cluster", cluster_spec, rayservice));
  MakePod("rs-worker", rs_cluster, {{"ray.io/group", "gpu"}, {"ray.io/node-type", "worker"}});
  ExpectGroup("rs-worker", "pg-rs-" + Uid(rayservice), 5, "q-rs", "train", subs);
}

TEST_F(PodGrouperKindsTest, AKnativeRevisionIsAGangOfItsMinScale) {
  // Service -> Configuration -> Revision -> Deployment -> ReplicaSet -> pods.
  const Resource services{"serving.knative.dev", "v1", "services", true};
  const Resource configurations{"serving.knative.dev", "v1", "configurations", true};
  const Resource revisions{"serving.knative.dev", "v1", "revisions", true};
  const nlohmann::json svc =
      Make(services, Object("serving.knative.dev/v1", "Service", "llm", nlohmann::json::object()));
  const nlohmann::json config =
      Make(configurations,
           Object("serving.knative.dev/v1", "Configuration", "llm", nlohmann::json::object(), svc));
  nlohmann::json rev =
      Object("serving.knative.dev/v1", "Revision", "llm-00001", nlohmann::json::object(), config);
  rev["metadata"]["annotations"] = {{"autoscaling.knative.dev/min-scale", "2"}};
  const nlohmann::json revision = Make(revisions, rev);
  const nlohmann::json labels = {{"serving.knative.dev/revision", "llm-00001"}, {"app", "llm"}};
  Make(kDeployments, Object("apps/v1", "Deployment", "llm-00001-deployment",
                            {{"replicas", 2},
                             {"selector", {{"matchLabels", labels}}},
                             {"template", Template(labels)}},
                            revision));
  std::string pod;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto list = admin_->List(Pods(), ns_, {"app=llm", "", 500, ""});
        if (list.ok() && !list->items.empty()) pod = list->items[0].name;
        return !pod.empty();
      },
      std::chrono::seconds(30)));
  ExpectGroup(pod, "pg-llm-00001-" + Uid(revision), 2, "q-llm-00001", "inference");
}

TEST_F(PodGrouperKindsTest, ArgoStepsAndCronJobRunsAreGroupsOfOne) {
  // An Argo step pod is owned by the Workflow, which only wraps it: the pod is its own group,
  // with the Workflow's queue.
  const nlohmann::json workflow =
      Make({"argoproj.io", "v1alpha1", "workflows", true},
           Object("argoproj.io/v1alpha1", "Workflow", "wf", nlohmann::json::object()));
  MakePod("wf-step-1", workflow);
  auto step = admin_->Get(Pods(), ns_, "wf-step-1");
  ASSERT_TRUE(step.ok());
  ExpectGroup("wf-step-1", "pg-wf-step-1-" + JsonField(step->json, "metadata.uid"), 1, "q-wf",
              "train");

  // A CronJob's run: the Job it made (made here: the test cluster runs no CronJob controller),
  // whose pods the Job controller makes. Grouped by the Job with the default rules.
  nlohmann::json job_template = {{"spec", {{"template", Template()}}}};
  job_template["spec"]["template"]["spec"]["restartPolicy"] = "Never";
  const nlohmann::json cron =
      Make(kCronJobs, Object("batch/v1", "CronJob", "nightly",
                             {{"schedule", "0 3 * * *"}, {"jobTemplate", job_template}}));
  nlohmann::json pods = Template();
  pods["spec"]["restartPolicy"] = "Never";
  const nlohmann::json run =
      Make(kubeclient::resources::Jobs(),
           Object("batch/v1", "Job", "nightly-29000000", {{"template", pods}}, cron));
  std::string pod;
  ASSERT_TRUE(WaitFor(
      [&] {
        auto list = admin_->List(Pods(), ns_, {"job-name=nightly-29000000", "", 500, ""});
        if (list.ok() && !list->items.empty()) pod = list->items[0].name;
        return !pod.empty();
      },
      std::chrono::seconds(30)));
  // The Job's own queue label comes first; the CronJob's would apply without one.
  ExpectGroup(pod, "pg-nightly-29000000-" + Uid(run), 1, "q-nightly-29000000", "train");
}

}  // namespace
}  // namespace quotient::k8s_integration
