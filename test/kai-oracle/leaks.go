package main

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
)

// eventlessClient is the kube client KAI's cache gets: the cycle's fake API, except that events
// go nowhere. KAI's cache starts an event broadcaster whose sink is its kube client and never
// stops it (a scheduler has one cache for its lifetime). The oracle makes a cache per cycle; with
// the fake API as sink, each broadcaster left running would keep that cycle's fake API and all
// its objects alive (about half a megabyte a cycle). Events change nothing KAI decides.
type eventlessClient struct{ kubernetes.Interface }

func (c eventlessClient) CoreV1() corev1client.CoreV1Interface {
	return eventlessCoreV1{c.Interface.CoreV1()}
}

type eventlessCoreV1 struct{ corev1client.CoreV1Interface }

func (eventlessCoreV1) Events(string) corev1client.EventInterface { return discardedEvents{} }

// discardedEvents implements what an event sink calls; nothing else of it is used.
type discardedEvents struct{ corev1client.EventInterface }

func (discardedEvents) CreateWithEventNamespace(e *v1.Event) (*v1.Event, error) { return e, nil }
func (discardedEvents) UpdateWithEventNamespace(e *v1.Event) (*v1.Event, error) { return e, nil }
func (discardedEvents) PatchWithEventNamespace(e *v1.Event, _ []byte) (*v1.Event, error) {
	return e, nil
}
