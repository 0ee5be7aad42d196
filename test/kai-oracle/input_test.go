package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func loadText(t *testing.T, text string) (*objects, []string) {
	t.Helper()
	path := writeFile(t, t.TempDir(), "cluster.yaml", text)
	w, warnings, err := loadInputs([]string{path}, nil)
	if err != nil {
		t.Fatalf("loadInputs: %v", err)
	}
	return w, warnings
}

func TestLoadMultiDocumentYAML(t *testing.T) {
	w, warnings := loadText(t, `
# a comment-only document
---
apiVersion: v1
kind: Node
metadata: {name: n1}
status: {allocatable: {cpu: "4", nvidia.com/gpu: "2"}}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, namespace: ml, annotations: {gpu-fraction: "0.5"}}
spec: {schedulerName: quotient, containers: [{name: c}]}
---
apiVersion: scheduling.run.ai/v2
kind: Queue
metadata: {name: q}
spec: {resources: {gpu: {quota: 2, limit: -1, overQuotaWeight: 1}}}
---
apiVersion: scheduling.run.ai/v2alpha2
kind: PodGroup
metadata: {name: pg, namespace: ml}
spec: {queue: q, minMember: 2}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: train}
value: 50
`)
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if len(w.Nodes) != 1 || len(w.Pods) != 1 || len(w.Queues) != 1 || len(w.PodGroups) != 1 ||
		len(w.PriorityClasses) != 1 {
		t.Fatalf("objects: %d nodes, %d pods, %d queues, %d groups, %d classes",
			len(w.Nodes), len(w.Pods), len(w.Queues), len(w.PodGroups), len(w.PriorityClasses))
	}
	if q := w.Nodes[0].Status.Allocatable["nvidia.com/gpu"]; q.Value() != 2 {
		t.Errorf("node GPUs: %v", q.String())
	}
	if got := w.Queues[0].Spec.Resources.GPU.Quota; got != 2 {
		t.Errorf("queue GPU quota: %v", got)
	}
	if w.PodGroups[0].Spec.MinMember == nil || *w.PodGroups[0].Spec.MinMember != 2 {
		t.Errorf("minMember: %v", w.PodGroups[0].Spec.MinMember)
	}
	if w.PriorityClasses[0].Value != 50 {
		t.Errorf("priority class value: %d", w.PriorityClasses[0].Value)
	}
	if w.Pods[0].Annotations["gpu-fraction"] != "0.5" {
		t.Errorf("annotations: %v", w.Pods[0].Annotations)
	}
}

func TestLoadListsInheritKindAndAPIVersion(t *testing.T) {
	w, warnings := loadText(t, `
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: PodList
  items:
  - metadata: {name: a, namespace: ml}
  - metadata: {name: b, namespace: ml}
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
`)
	if len(warnings) != 0 {
		t.Errorf("warnings: %v", warnings)
	}
	if len(w.Pods) != 2 || len(w.Nodes) != 1 {
		t.Fatalf("%d pods, %d nodes", len(w.Pods), len(w.Nodes))
	}
}

func TestLoadJSON(t *testing.T) {
	w, warnings := loadText(t, `{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml",
   "labels": {"version": "1"}}, "spec": {"containers": [{"name": "c",
   "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}]}`)
	if len(warnings) != 0 || len(w.Pods) != 1 {
		t.Fatalf("pods %d, warnings %v", len(w.Pods), warnings)
	}
	if q := w.Pods[0].Spec.Containers[0].Resources.Limits["nvidia.com/gpu"]; q.Value() != 1 {
		t.Errorf("GPU limit %v", q.String())
	}
}

// YAML 1.2 scalars, as quotient reads them: `y` is a string, not YAML 1.1's true; a number in
// a string field (an unquoted label value) is kept as its text.
func TestLoadScalarsAsYAML12(t *testing.T) {
	w, warnings := loadText(t, `
apiVersion: v1
kind: Pod
metadata:
  name: y
  namespace: ml
  labels: {version: 2, on: yes}
  annotations: {pod-group-name: n}
spec: {containers: [{name: c}]}
`)
	if len(warnings) != 0 || len(w.Pods) != 1 {
		t.Fatalf("pods %d, warnings %v", len(w.Pods), warnings)
	}
	p := w.Pods[0]
	if p.Name != "y" || p.Annotations["pod-group-name"] != "n" {
		t.Errorf("name %q, annotations %v", p.Name, p.Annotations)
	}
	if p.Labels["version"] != "2" || p.Labels["on"] != "yes" {
		t.Errorf("labels %v", p.Labels)
	}
}

func TestLoadWarnsAndSkips(t *testing.T) {
	w, warnings := loadText(t, `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
---
apiVersion: scheduling.run.ai/v1
kind: Queue
metadata: {name: old}
---
metadata: {name: kindless}
---
- just
- a list
---
apiVersion: v1
kind: Node
metadata: {name: broken}
status: {allocatable: {cpu: sixteen}}
---
apiVersion: v1
kind: Node
metadata: {name: fine}
`)
	if len(w.Nodes) != 1 || w.Nodes[0].Name != "fine" || len(w.Queues) != 0 {
		t.Fatalf("nodes %v, queues %d", w.Nodes, len(w.Queues))
	}
	want := []string{"unsupported kind Deployment", `unsupported apiVersion "scheduling.run.ai/v1"`,
		"no kind", "not a Kubernetes object", "Node broken: cannot decode"}
	if len(warnings) != len(want) {
		t.Fatalf("warnings: %q", warnings)
	}
	for i, w := range want {
		if !strings.Contains(warnings[i], w) {
			t.Errorf("warning %d: %q lacks %q", i, warnings[i], w)
		}
	}
}

func TestLoadDirectoryByNameAndStdin(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "b.yml", "apiVersion: v1\nkind: Node\nmetadata: {name: from-b}\n")
	writeFile(t, dir, "a.json", `{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "from-a"}}`)
	writeFile(t, dir, "c.txt", "apiVersion: v1\nkind: Node\nmetadata: {name: ignored}\n")
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdin := strings.NewReader("apiVersion: v1\nkind: Node\nmetadata: {name: from-stdin}\n")
	w, _, err := loadInputs([]string{dir, "-"}, stdin)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range w.Nodes {
		names = append(names, n.Name)
	}
	if got := strings.Join(names, ","); got != "from-a,from-b,from-stdin" {
		t.Errorf("nodes in order: %s", got)
	}
}

func TestLoadUnreadableInput(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := loadInputs([]string{filepath.Join(dir, "missing.yaml")}, nil); err == nil ||
		!strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	broken := writeFile(t, dir, "broken.yaml", "kind: Node\nmetadata: {name: [unclosed\n")
	if _, _, err := loadInputs([]string{broken}, nil); err == nil {
		t.Error("a YAML syntax error must fail the load")
	}
}
