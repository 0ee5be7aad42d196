package main

// A fake kubelet for nodes that have no real one (docs: k8s-integration.md §1.8), the fallback
// to kwok (--node-simulator=fake; kwok.go is the default). It manages
// the Nodes annotated kwok.x-k8s.io/node=fake (kwok's annotation, so manifests written for kwok
// work unchanged) and the pods bound to them:
//   - Node: the standard kubelet conditions (Ready=True, Memory/Disk/PIDPressure=False), an
//     InternalIP/Hostname address when it has none, allocatable = capacity where unset; other
//     condition types are left alone (strategic merge by type). Heartbeat every 60 s, and a
//     kube-node-lease Lease renewed every 10 s, as a kubelet does.
//   - Pods: see fakepods.go.
// With kwok as the node simulator it runs as a reaper only (reaperOnly): it deletes terminating
// pods bound to a node that no longer exists, which kwok leaves alone.

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

const (
	fakeNodeAnnotation = "kwok.x-k8s.io/node"
	fakeNodeValue      = "fake"

	leaseDurationSeconds  = 40
	leaseRenewInterval    = 10 * time.Second
	nodeHeartbeatInterval = 60 * time.Second
	podNodeIndex          = "spec.nodeName"
)

// standardNodeConditions are the condition types a kubelet owns; the fake kubelet writes only
// these, so condition types added by tests (a node-health agent's) survive.
var standardNodeConditions = []struct {
	typ     corev1.NodeConditionType
	status  corev1.ConditionStatus
	reason  string
	message string
}{
	{corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status (k8s-harness fake kubelet)"},
	{corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"},
	{corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"},
	{corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"},
}

type fakeKubelet struct {
	client    kubernetes.Interface
	nodes     corelisters.NodeLister
	pods      corelisters.PodLister
	podIndex  cache.Indexer
	nodeQueue workqueue.TypedRateLimitingInterface[string]
	podQueue  workqueue.TypedRateLimitingInterface[string]

	// leases is touched only by the single node worker.
	leases map[string]*coordinationv1.Lease
	// badDelay remembers pods whose delay annotation was already reported as invalid.
	badDelay sync.Map
	// reaperOnly: manage no node; only delete terminating pods whose node is gone.
	reaperOnly bool
}

func isFakeNode(n *corev1.Node) bool {
	return n != nil && n.Annotations[fakeNodeAnnotation] == fakeNodeValue
}

// startFakeKubelet starts the informers and workers and returns once the caches are synced.
func startFakeKubelet(ctx context.Context, client kubernetes.Interface, reaperOnly bool) error {
	nodeFactory := informers.NewSharedInformerFactory(client, 0)
	// Only bound pods matter; the field selector keeps pending unscheduled pods out of the cache.
	podFactory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = "spec.nodeName!=" }))
	nodeInformer := nodeFactory.Core().V1().Nodes()
	podInformer := podFactory.Core().V1().Pods()
	if err := podInformer.Informer().AddIndexers(cache.Indexers{podNodeIndex: func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
	}}); err != nil {
		return err
	}
	k := &fakeKubelet{
		client:   client,
		nodes:    nodeInformer.Lister(),
		pods:     podInformer.Lister(),
		podIndex: podInformer.Informer().GetIndexer(),
		nodeQueue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "harness_fake_kubelet_nodes"}),
		podQueue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "harness_fake_kubelet_pods"}),
		leases:     map[string]*coordinationv1.Lease{},
		reaperOnly: reaperOnly,
	}
	nodeInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { k.nodeChanged(nil, obj.(*corev1.Node)) },
		UpdateFunc: func(oldObj, newObj any) {
			k.nodeChanged(oldObj.(*corev1.Node), newObj.(*corev1.Node))
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if n, ok := obj.(*corev1.Node); ok {
				if !k.reaperOnly {
					k.nodeQueue.Add(n.Name) // drops its Lease from the map
				}
				k.enqueuePodsOn(n.Name) // terminating pods of a deleted node go too
			}
		},
	})
	enqueuePod := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			k.podQueue.Add(key)
		}
	}
	podInformer.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    enqueuePod,
		UpdateFunc: func(_, newObj any) { enqueuePod(newObj) },
	})
	nodeFactory.Start(ctx.Done())
	podFactory.Start(ctx.Done())
	for typ, ok := range nodeFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("fake kubelet: %v informer did not sync", typ)
		}
	}
	for typ, ok := range podFactory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("fake kubelet: %v informer did not sync", typ)
		}
	}
	go func() {
		<-ctx.Done()
		k.nodeQueue.ShutDown()
		k.podQueue.ShutDown()
	}()
	for range 4 {
		go runWorker(k.podQueue, func(key string) error { return k.syncPod(ctx, key) })
	}
	if reaperOnly {
		return nil
	}
	// One node worker: nodes are few, and it keeps the lease map single-threaded.
	go runWorker(k.nodeQueue, func(name string) error { return k.syncNode(ctx, name) })
	// Periodic pass for Lease renewal and heartbeats.
	go func() {
		ticker := time.NewTicker(leaseRenewInterval)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				nodes, _ := k.nodes.List(labels.Everything())
				for _, n := range nodes {
					if isFakeNode(n) {
						k.nodeQueue.Add(n.Name)
					}
				}
			}
		}
	}()
	return nil
}

func runWorker(q workqueue.TypedRateLimitingInterface[string], sync func(string) error) {
	for {
		key, quit := q.Get()
		if quit {
			return
		}
		if err := sync(key); err != nil {
			if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
				fmt.Fprintf(os.Stderr, "k8s-harness: fake kubelet: %s: %v\n", key, err)
			}
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

func (k *fakeKubelet) nodeChanged(old, n *corev1.Node) {
	if k.reaperOnly || (!isFakeNode(n) && !isFakeNode(old)) {
		return
	}
	k.nodeQueue.Add(n.Name)
	// A node that just became managed (or appeared after its pods were bound): look at its pods.
	if isFakeNode(n) && !isFakeNode(old) {
		k.enqueuePodsOn(n.Name)
	}
}

func (k *fakeKubelet) enqueuePodsOn(node string) {
	pods, _ := k.podIndex.ByIndex(podNodeIndex, node)
	for _, obj := range pods {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			k.podQueue.Add(key)
		}
	}
}

func (k *fakeKubelet) syncNode(ctx context.Context, name string) error {
	node, err := k.nodes.Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !isFakeNode(node)) {
		delete(k.leases, name)
		return nil
	}
	if err != nil {
		return err
	}
	if err := k.renewLease(ctx, node); err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	patch := nodeStatusPatch(node, time.Now())
	if patch == nil {
		return nil
	}
	data, err := json.Marshal(map[string]any{"status": patch})
	if err != nil {
		return err
	}
	_, err = k.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, data, metav1.PatchOptions{}, "status")
	return err
}

// nodeStatusPatch returns the status fields to patch, or nil when the node is up to date and its
// heartbeat is recent.
func nodeStatusPatch(node *corev1.Node, now time.Time) map[string]any {
	patch := map[string]any{}
	stale := false
	for _, want := range standardNodeConditions {
		var have *corev1.NodeCondition
		for i := range node.Status.Conditions {
			if node.Status.Conditions[i].Type == want.typ {
				have = &node.Status.Conditions[i]
			}
		}
		if have == nil || have.Status != want.status || have.Reason != want.reason ||
			now.Sub(have.LastHeartbeatTime.Time) >= nodeHeartbeatInterval-2*time.Second {
			stale = true
		}
	}
	if stale {
		var conds []corev1.NodeCondition
		for _, want := range standardNodeConditions {
			transition := metav1.NewTime(now)
			for _, c := range node.Status.Conditions {
				if c.Type == want.typ && c.Status == want.status && !c.LastTransitionTime.IsZero() {
					transition = c.LastTransitionTime
				}
			}
			conds = append(conds, corev1.NodeCondition{Type: want.typ, Status: want.status, Reason: want.reason,
				Message: want.message, LastHeartbeatTime: metav1.NewTime(now), LastTransitionTime: transition})
		}
		patch["conditions"] = conds
	}
	if len(node.Status.Addresses) == 0 {
		patch["addresses"] = []corev1.NodeAddress{
			{Type: corev1.NodeInternalIP, Address: nodeIP(node.Name)},
			{Type: corev1.NodeHostName, Address: node.Name},
		}
	}
	capacity := node.Status.Capacity
	if len(capacity) == 0 { // a node created without status gets a generous default
		capacity = corev1.ResourceList{}
		for name, q := range map[corev1.ResourceName]string{"cpu": "32", "memory": "256Gi", "pods": "110"} {
			capacity[name] = resource.MustParse(q)
		}
		patch["capacity"] = capacity
	}
	missing := corev1.ResourceList{}
	for name, q := range capacity {
		if _, ok := node.Status.Allocatable[name]; !ok {
			missing[name] = q
		}
	}
	if len(missing) > 0 {
		patch["allocatable"] = missing // a map: merged key by key
	}
	if node.Status.NodeInfo.KubeletVersion == "" {
		patch["nodeInfo"] = map[string]string{"kubeletVersion": "v1.36.3-fake", "operatingSystem": "linux",
			"architecture": "amd64"}
	}
	if len(patch) == 0 {
		return nil
	}
	return patch
}

func (k *fakeKubelet) renewLease(ctx context.Context, node *corev1.Node) error {
	leases := k.client.CoordinationV1().Leases(corev1.NamespaceNodeLease)
	now := metav1.NewMicroTime(time.Now())
	lease := k.leases[node.Name]
	if lease != nil && lease.Spec.RenewTime != nil && now.Sub(lease.Spec.RenewTime.Time) < leaseRenewInterval-2*time.Second {
		return nil
	}
	if lease == nil {
		got, err := leases.Get(ctx, node.Name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			created, err := leases.Create(ctx, &coordinationv1.Lease{
				ObjectMeta: metav1.ObjectMeta{
					Name: node.Name,
					// As the kubelet does: the garbage collector deletes the Lease with its Node.
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node.Name, UID: node.UID}},
				},
				Spec: coordinationv1.LeaseSpec{
					HolderIdentity:       ptr.To(node.Name),
					LeaseDurationSeconds: ptr.To[int32](leaseDurationSeconds),
					RenewTime:            &now,
				},
			}, metav1.CreateOptions{})
			if err == nil {
				k.leases[node.Name] = created
			}
			return err
		}
		if err != nil {
			return err
		}
		lease = got
	}
	lease = lease.DeepCopy()
	lease.Spec.HolderIdentity = ptr.To(node.Name)
	lease.Spec.LeaseDurationSeconds = ptr.To[int32](leaseDurationSeconds)
	lease.Spec.RenewTime = &now
	updated, err := leases.Update(ctx, lease, metav1.UpdateOptions{})
	if err != nil {
		delete(k.leases, node.Name) // conflict or gone: read it again on the retry
		return err
	}
	k.leases[node.Name] = updated
	return nil
}

// nodeIP makes up a stable address for a node that was created without one.
func nodeIP(name string) string {
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("172.%d.%d.%d", 16+(v>>16)%16, (v>>8)&0xff, 1+(v&0xff)%254)
}
