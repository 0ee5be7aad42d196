package main

// A subset of kube-controller-manager in the same process (docs: k8s-integration.md §1.7), run
// through the real kube-controller-manager app with its options set in code rather than parsed
// from flags: the flag path (cobra command, ComponentGlobalsRegistry.Set, logsapi.ValidateAndApply)
// would apply process-global settings a second time after the API server already did.

import (
	"context"
	"strings"

	restclient "k8s.io/client-go/rest"
	ctrlapp "k8s.io/kubernetes/cmd/kube-controller-manager/app"
	kcmconfig "k8s.io/kubernetes/cmd/kube-controller-manager/app/config"
	ctrloptions "k8s.io/kubernetes/cmd/kube-controller-manager/app/options"
	"k8s.io/kubernetes/cmd/kube-controller-manager/names"
)

// defaultControllers are the controllers the integration tests rely on.
var defaultControllers = strings.Join([]string{
	names.GarbageCollectorController, // cascading deletes, foreground deletion
	names.JobController,
	names.DeploymentController,
	names.ReplicaSetController,
	names.StatefulSetController,
	names.DisruptionController,     // PDB status; eviction answers 429 forever without it
	names.NamespaceController,      // namespace deletion completes
	names.ServiceAccountController, // `default` SA, so the ServiceAccount admission plugin can stay on
	names.NodeLifecycleController,  // removes the not-ready taint, marks nodes with stale Leases
	names.TaintEvictionController,  // NoExecute taints evict pods
}, ",")

// newControllers validates the options of the named controllers (kube-controller-manager's
// --controllers syntax) and builds their configuration; ctrlapp.Run runs it until ctx is done.
// Separate so that a bad --controllers fails before READY.
func newControllers(ctx context.Context, kubeconfig string, controllers []string) (*kcmconfig.CompletedConfig, error) {
	s, err := ctrloptions.NewKubeControllerManagerOptions()
	if err != nil {
		return nil, err
	}
	s.Generic.ClientConnection.Kubeconfig = kubeconfig
	s.Generic.Controllers = controllers
	s.Generic.LeaderElection.LeaderElect = false // one instance; no kube-system Lease to wait for
	s.SecureServing.BindPort = 0                 // no :10257 health/metrics endpoint
	// kube-controller-manager's 20 QPS would make a 100-pod Job take seconds to create.
	s.Generic.ClientConnection.QPS, s.Generic.ClientConnection.Burst = 200, 400
	// As kube-controller-manager does (process-wide): it watches deprecated APIs on purpose.
	restclient.SetDefaultWarningHandler(restclient.NoWarnings{})
	c, err := s.Config(ctx, ctrlapp.KnownControllers(), ctrlapp.ControllersDisabledByDefault(), ctrlapp.ControllerAliases())
	if err != nil {
		return nil, err
	}
	return c.Complete(), nil
}
