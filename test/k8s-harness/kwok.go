package main

// The default node simulator: kwok's controller (sigs.k8s.io/kwok v0.8.0, docs:
// k8s-integration.md §1.8) in the same process, as `kwok --manage-nodes-with-annotation-selector`
// would run it, with stages given in code (no kwok CRDs):
//   - Node: kwok's node-initialize (fast) and node-heartbeat-with-lease stages, plus a
//     kube-node-lease Lease per node renewed every 10 s (40 s duration). The stages patch
//     status with a strategic merge patch, which merges conditions by type: condition types
//     other than kwok's five (Ready, Memory/Disk/PIDPressure, NetworkUnavailable) are kept.
//     node-initialize gives a node without addresses an InternalIP made up from its name and a
//     Hostname address equal to its name (kwok alone would give every node the same --node-ip).
//   - Pod: kwok's pod-ready and pod-delete (fast) stages, and our pod-complete (kwokPodComplete).
// Pods whose node no longer exists are not kwok's (it only acts on pods of nodes it holds the
// Lease of); the fake kubelet's reaper deletes those once they are terminating (fakekubelet.go).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/clock"
	nodefast "sigs.k8s.io/kwok/kustomize/stage/node/fast"
	nodeheartbeat "sigs.k8s.io/kwok/kustomize/stage/node/heartbeat-with-lease"
	podfast "sigs.k8s.io/kwok/kustomize/stage/pod/fast"
	"sigs.k8s.io/kwok/pkg/apis/internalversion"
	kwokclient "sigs.k8s.io/kwok/pkg/client/clientset/versioned"
	"sigs.k8s.io/kwok/pkg/config"
	"sigs.k8s.io/kwok/pkg/kwok/controllers"
	kwoklog "sigs.k8s.io/kwok/pkg/log"
	"sigs.k8s.io/kwok/pkg/utils/client"
	"sigs.k8s.io/kwok/pkg/utils/gotpl"
)

// kwokPodComplete replaces kwok's fast pod-complete stage (Job pods complete at once) with the
// delay of its general one, without that one's default 1–5 s random delay: a Running pod owned
// by a Job, or carrying the delay annotation, becomes Succeeded (containers terminated with exit
// code 0, Ready/ContainersReady False with reason PodCompleted) after
// pod-complete.stage.kwok.x-k8s.io/delay (a Go duration or an RFC 3339 time; absent or
// unparsable: 0), plus a random part up to …/jitter-delay when that is set. The delay counts
// from the pod's last change. Two stages because selector expressions are ANDed; a Job pod with
// the annotation matches both, and kwok picks one — they do the same.
const kwokPodComplete = `
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Stage
metadata:
  name: %s
spec:
  resourceRef:
    apiGroup: v1
    kind: Pod
  selector:
    matchExpressions:
    - key: '.metadata.deletionTimestamp'
      operator: 'DoesNotExist'
    - key: '.status.phase'
      operator: 'In'
      values:
      - 'Running'
    - %s
  delay:
    durationMilliseconds: 0
    durationFrom:
      expressionFrom: '.metadata.annotations["pod-complete.stage.kwok.x-k8s.io/delay"]'
    jitterDurationFrom:
      expressionFrom: '.metadata.annotations["pod-complete.stage.kwok.x-k8s.io/jitter-delay"]'
  next:
    statusTemplate: |
      {{ $now := Now }}
      {{ $root := . }}
      conditions:
      - lastTransitionTime: {{ $now | Quote }}
        reason: PodCompleted
        status: "False"
        type: Ready
      - lastTransitionTime: {{ $now | Quote }}
        reason: PodCompleted
        status: "False"
        type: ContainersReady
      containerStatuses:
      {{ range $index, $item := .spec.containers }}
      - image: {{ $item.image | Quote }}
        name: {{ $item.name | Quote }}
        ready: false
        restartCount: 0
        started: false
        state:
          terminated:
            exitCode: 0
            finishedAt: {{ $now | Quote }}
            reason: Completed
            startedAt: {{ or $root.status.startTime $now | Quote }}
      {{ end }}
      phase: Succeeded
`

const (
	kwokLeaseDurationSeconds = 40
	// kwokIdentity holds the node Leases. Fixed rather than kwok's hostname_uuid so that a
	// restart on the same --dir takes its Leases over at once instead of after they expire.
	kwokIdentity = "k8s-harness-kwok"
)

// kwokStages returns the stages by resource. heartbeat overrides the heartbeat stage's delay
// (kwok's: 600–610 s; with Leases the node-lifecycle controller does not need it) when > 0.
func kwokStages(heartbeat time.Duration) (map[internalversion.StageResourceRef][]*internalversion.Stage, error) {
	// Per-node addresses: kwok's template takes NodeIP/NodeName from its own flags (one value
	// for all nodes); use the node's own name instead.
	nodeInit := nodefast.DefaultNodeInit
	for old, repl := range map[string]string{
		"{{ with NodeIP }}":   "{{ with HarnessNodeIP $.metadata.name }}",
		"{{ with NodeName }}": "{{ with $.metadata.name }}",
	} {
		if strings.Count(nodeInit, old) != 1 {
			return nil, fmt.Errorf("kwok's node-initialize stage changed: %q not found once", old)
		}
		nodeInit = strings.Replace(nodeInit, old, repl, 1)
	}
	raw := []string{
		nodeInit,
		nodeheartbeat.DefaultNodeHeartbeatWithLease,
		podfast.DefaultPodReady,
		fmt.Sprintf(kwokPodComplete, "pod-complete", `key: '.metadata.ownerReferences.[].kind'
      operator: 'In'
      values:
      - 'Job'`),
		fmt.Sprintf(kwokPodComplete, "pod-complete-annotated",
			`key: '.metadata.annotations["pod-complete.stage.kwok.x-k8s.io/delay"]'
      operator: 'Exists'`),
		podfast.DefaultPodDelete,
	}
	stages := map[internalversion.StageResourceRef][]*internalversion.Stage{}
	for _, r := range raw {
		s, err := config.UnmarshalWithType[*internalversion.Stage](r)
		if err != nil {
			return nil, fmt.Errorf("kwok stage: %w", err)
		}
		if s.Name == "node-heartbeat-with-lease" && heartbeat > 0 {
			ms := heartbeat.Milliseconds()
			s.Spec.Delay.DurationMilliseconds = &ms
			jitter := ms + ms/60 // kwok's 600–610 s, scaled
			s.Spec.Delay.JitterDurationMilliseconds = &jitter
		}
		stages[s.Spec.ResourceRef] = append(stages[s.Spec.ResourceRef], s)
	}
	return stages, nil
}

// kwokTypedClient is the client kwok gets: its node watch turns a Modified event of a node
// without the annotation into Deleted (of a copy that still has it, or kwok's informer would
// filter it out). kwok filters nodes by annotation on its side, so otherwise it never learns
// that a node lost the annotation and keeps renewing its Lease; this way a test can still make a
// managed node's kubelet die by removing the annotation (Ready=Unknown after the node-lifecycle
// grace period), and bring it back by adding it again.
type kwokTypedClient struct{ kubernetes.Interface }

func (c kwokTypedClient) CoreV1() corev1client.CoreV1Interface {
	return kwokCoreV1{c.Interface.CoreV1()}
}

type kwokCoreV1 struct{ corev1client.CoreV1Interface }

func (c kwokCoreV1) Nodes() corev1client.NodeInterface { return kwokNodes{c.CoreV1Interface.Nodes()} }

type kwokNodes struct{ corev1client.NodeInterface }

func (n kwokNodes) Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	w, err := n.NodeInterface.Watch(ctx, opts)
	if err != nil {
		return nil, err
	}
	return watch.Filter(w, func(e watch.Event) (watch.Event, bool) {
		if node, ok := e.Object.(*corev1.Node); ok && e.Type == watch.Modified && !isFakeNode(node) {
			node = node.DeepCopy()
			metav1.SetMetaDataAnnotation(&node.ObjectMeta, fakeNodeAnnotation, fakeNodeValue)
			return watch.Event{Type: watch.Deleted, Object: node}, true
		}
		return e, true
	}), nil
}

// kwokLogFilter drops kwok's log records about deleting a pod that is already gone (its
// pod-delete stage racing the API server, which removes terminal pods at once: one ERROR line per
// pod when a namespace of completed Job pods is deleted). slog writes one record per Write.
type kwokLogFilter struct{ w io.Writer }

func (f kwokLogFilter) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("failed to delete pod")) && bytes.Contains(p, []byte(`not found`)) {
		return len(p), nil
	}
	return f.w.Write(p)
}

// startKwok starts kwok's controller for the nodes annotated kwok.x-k8s.io/node=fake; it runs
// until ctx is done. Clients are built as kwok's own command does (pkg/kwok/cmd/root.go): no
// client-side rate limit.
func startKwok(ctx context.Context, kubeconfig string, heartbeat time.Duration) error {
	stages, err := kwokStages(heartbeat)
	if err != nil {
		return err
	}
	// kwok logs through its own slog wrapper; Info would log every patch.
	ctx = kwoklog.NewContext(ctx, kwoklog.NewLogger(kwokLogFilter{os.Stderr}, kwoklog.LevelWarn))
	cs, err := client.NewClientset("", kubeconfig)
	if err != nil {
		return err
	}
	restConfig, err := cs.ToRESTConfig()
	if err != nil {
		return err
	}
	dynamicClient, err := cs.ToDynamicClient()
	if err != nil {
		return err
	}
	restMapper, err := cs.ToRESTMapper()
	if err != nil {
		return err
	}
	restClient, err := rest.RESTClientFor(restConfig)
	if err != nil {
		return err
	}
	typedClient, err := kubernetes.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	typedKwokClient, err := kwokclient.NewForConfig(restConfig)
	if err != nil {
		return err
	}
	ctr, err := controllers.NewController(controllers.Config{
		Clock:                             clock.RealClock{},
		DynamicClient:                     dynamicClient,
		RESTClient:                        restClient,
		RESTMapper:                        restMapper,
		ImpersonatingDynamicClient:        cs.ToImpersonatingDynamicClient(),
		ImpersonatingTypedClient:          cs.ToImpersonatingTypedClient(),
		TypedClient:                       kwokTypedClient{typedClient},
		TypedKwokClient:                   typedKwokClient,
		ManageNodesWithAnnotationSelector: fakeNodeAnnotation + "=" + fakeNodeValue,
		CIDR:                              "10.128.0.0/9", // pod IPs
		LocalStages:                       stages,
		FuncMap:                           gotpl.FuncMap{"HarnessNodeIP": nodeIP},
		// kwok's configuration defaults; on this path zero values are not defaulted.
		PodPlayStageParallelism:       4,
		NodePlayStageParallelism:      4,
		NodeLeaseParallelism:          4,
		PodsOnNodeSyncParallelism:     1,
		NodeLeaseDurationSeconds:      kwokLeaseDurationSeconds,
		EnablePodsOnNodeSyncListPager: true,
		ID:                            kwokIdentity,
	})
	if err != nil {
		return err
	}
	return ctr.Start(ctx)
}
