package main

// The fake kubelet's pod rules, for pods bound (spec.nodeName) to a managed node; it writes pod
// status only through the status subresource (strategic merge patch, so conditions of other
// types — DisruptionTarget, readiness gates — survive):
//   - deletionTimestamp set: delete with grace period 0 — what a kubelet does once the containers
//     are gone; without it graceful deletes and evictions of bound pods never finish. This also
//     applies to pods bound to a node that no longer exists.
//   - Pending: Running, with PodScheduled/Initialized/ContainersReady/Ready True, running
//     container statuses, podIP/hostIP and startTime.
//   - Running and owned by a Job, or carrying the delay annotation: Succeeded (containers
//     terminated with exit code 0) once startTime + pod-complete.stage.kwok.x-k8s.io/delay (a Go
//     duration; absent = 0 = at once) has passed. Other pods run until deleted.

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

const completeDelayAnnotation = "pod-complete.stage.kwok.x-k8s.io/delay"

func (k *fakeKubelet) syncPod(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	pod, err := k.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	node, err := k.nodes.Get(pod.Spec.NodeName)
	nodeGone := apierrors.IsNotFound(err)
	if !nodeGone && (k.reaperOnly || err != nil || !isFakeNode(node)) {
		return nil // not ours; a node event re-queues the pod if its node becomes managed
	}
	pods := k.client.CoreV1().Pods(ns)
	switch {
	case pod.DeletionTimestamp != nil:
		// Also for a node that no longer exists: the harness has no real kubelets, and without
		// this a test that deletes its Nodes before its namespace waits for pod GC (not run
		// here; it would wait 40 s) to let the namespace go.
		if g := pod.DeletionGracePeriodSeconds; g != nil && *g == 0 {
			return nil // already asked; a finalizer (e.g. the Job controller's) holds it
		}
		err := pods.Delete(ctx, name, metav1.DeleteOptions{
			GracePeriodSeconds: ptr.To[int64](0),
			Preconditions:      &metav1.Preconditions{UID: &pod.UID},
		})
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or a new pod of that name
			return nil
		}
		return err
	case nodeGone:
		return nil
	case pod.Status.Phase == corev1.PodPending || pod.Status.Phase == "":
		return k.patchPodStatus(ctx, pod, runningStatus(pod, node, time.Now()))
	case pod.Status.Phase == corev1.PodRunning:
		delay, completes := k.completeDelay(pod)
		if !completes {
			return nil
		}
		start := time.Now()
		if pod.Status.StartTime != nil {
			start = pod.Status.StartTime.Time
		}
		if wait := time.Until(start.Add(delay)); wait > 0 {
			k.podQueue.AddAfter(key, wait)
			return nil
		}
		return k.patchPodStatus(ctx, pod, succeededStatus(pod, time.Now()))
	}
	return nil
}

// completeDelay says whether the pod is one that completes by itself, and after how long.
func (k *fakeKubelet) completeDelay(pod *corev1.Pod) (time.Duration, bool) {
	text, annotated := pod.Annotations[completeDelayAnnotation]
	ownedByJob := false
	for _, o := range pod.OwnerReferences {
		if o.Kind == "Job" {
			ownedByJob = true
		}
	}
	if !annotated {
		return 0, ownedByJob
	}
	delay, err := time.ParseDuration(text)
	if err != nil {
		// Never complete rather than complete at a time the test did not ask for.
		if _, seen := k.badDelay.LoadOrStore(pod.UID, true); !seen {
			fmt.Fprintf(os.Stderr, "k8s-harness: fake kubelet: pod %s/%s: %s: %v (pod keeps running)\n",
				pod.Namespace, pod.Name, completeDelayAnnotation, err)
		}
		return 0, false
	}
	return delay, true
}

func (k *fakeKubelet) patchPodStatus(ctx context.Context, pod *corev1.Pod, status map[string]any) error {
	data, err := json.Marshal(map[string]any{"status": status})
	if err != nil {
		return err
	}
	_, err = k.client.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, data,
		metav1.PatchOptions{}, "status")
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

func runningStatus(pod *corev1.Pod, node *corev1.Node, now time.Time) map[string]any {
	t := metav1.NewTime(now)
	hostIP := nodeIP(node.Name)
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			hostIP = a.Address
			break
		}
	}
	podIP := fakePodIP(pod.UID)
	if pod.Spec.HostNetwork {
		podIP = hostIP
	}
	var conds []corev1.PodCondition
	for _, typ := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized,
		corev1.ContainersReady, corev1.PodReady, corev1.PodScheduled} {
		conds = append(conds, corev1.PodCondition{Type: typ, Status: corev1.ConditionTrue, LastTransitionTime: t})
	}
	var inits []corev1.ContainerStatus
	for _, c := range pod.Spec.InitContainers {
		s := containerStatus(pod, c)
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways { // sidecar
			s.State.Running = &corev1.ContainerStateRunning{StartedAt: t}
			s.Ready, s.Started = true, ptr.To(true)
		} else {
			s.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: t,
				FinishedAt: t, ContainerID: s.ContainerID}
			s.Ready, s.Started = true, ptr.To(false)
		}
		inits = append(inits, s)
	}
	var containers []corev1.ContainerStatus
	for _, c := range pod.Spec.Containers {
		s := containerStatus(pod, c)
		s.State.Running = &corev1.ContainerStateRunning{StartedAt: t}
		s.Ready, s.Started = true, ptr.To(true)
		containers = append(containers, s)
	}
	status := map[string]any{
		"phase":             corev1.PodRunning,
		"conditions":        conds,
		"hostIP":            hostIP,
		"hostIPs":           []corev1.HostIP{{IP: hostIP}},
		"podIP":             podIP,
		"podIPs":            []corev1.PodIP{{IP: podIP}},
		"containerStatuses": containers,
	}
	if len(inits) > 0 {
		status["initContainerStatuses"] = inits
	}
	if pod.Status.StartTime == nil {
		status["startTime"] = t
	}
	return status
}

func succeededStatus(pod *corev1.Pod, now time.Time) map[string]any {
	t := metav1.NewTime(now)
	started := t
	if pod.Status.StartTime != nil {
		started = *pod.Status.StartTime
	}
	terminated := func(c corev1.Container) corev1.ContainerStatus {
		s := containerStatus(pod, c)
		s.State.Terminated = &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: started,
			FinishedAt: t, ContainerID: s.ContainerID}
		s.Started = ptr.To(false)
		return s
	}
	var inits, containers []corev1.ContainerStatus
	for _, c := range pod.Spec.InitContainers {
		inits = append(inits, terminated(c))
	}
	for _, c := range pod.Spec.Containers {
		containers = append(containers, terminated(c))
	}
	var conds []corev1.PodCondition
	for _, typ := range []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.ContainersReady, corev1.PodReady} {
		conds = append(conds, corev1.PodCondition{Type: typ, Status: corev1.ConditionFalse, Reason: "PodCompleted",
			LastTransitionTime: t})
	}
	status := map[string]any{
		"phase":             corev1.PodSucceeded,
		"conditions":        conds,
		"containerStatuses": containers,
	}
	if len(inits) > 0 {
		status["initContainerStatuses"] = inits
	}
	return status
}

func containerStatus(pod *corev1.Pod, c corev1.Container) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:        c.Name,
		Image:       c.Image,
		ImageID:     c.Image,
		ContainerID: fmt.Sprintf("fake://%s/%s", pod.UID, c.Name),
	}
}

// fakePodIP makes up a stable pod address in 10.128.0.0/9 from the pod's UID.
func fakePodIP(uid types.UID) string {
	h := fnv.New32a()
	h.Write([]byte(uid))
	v := h.Sum32()
	return fmt.Sprintf("10.%d.%d.%d", 128+(v>>16)%128, (v>>8)&0xff, 1+(v&0xff)%254)
}
