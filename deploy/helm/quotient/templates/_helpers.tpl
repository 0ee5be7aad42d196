{{/* The chart's name, or nameOverride. */}}
{{- define "quotient.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/*
The name of the release's objects: fullnameOverride; else the release name when it already
contains the chart's name; else "<release>-<name>".
*/}}
{{- define "quotient.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "quotient.selectorLabels" -}}
app.kubernetes.io/name: {{ include "quotient.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: scheduler
{{- end -}}

{{- define "quotient.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "quotient.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels of the cluster-wide defaults (PriorityClasses, queues): not the scheduler component. */}}
{{- define "quotient.defaultsLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "quotient.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "quotient.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* placementStrategy, checked: binpack, spread or fragmentation. */}}
{{- define "quotient.placementStrategy" -}}
{{- $s := .Values.placementStrategy | default "binpack" -}}
{{- if not (has $s (list "binpack" "spread" "fragmentation")) -}}
{{- fail (printf "placementStrategy must be binpack, spread or fragmentation, not %q" $s) -}}
{{- end -}}
{{- $s -}}
{{- end -}}

{{/*
The scheduler configuration in KAI's format (kai-reference §8.1/§8.2): the operator's default
actions and plugins, in its plugin-priority order. With spread, consolidation is left out and
gpuspread replaces gpupack and gpusharingorder, as KAI's operator does. fragmentation places
GPUs by the fragmentation they add (docs/placement.md) and CPUs by bin-pack, otherwise as binpack.
*/}}
{{- define "quotient.schedulerConfig" -}}
{{- $strategy := include "quotient.placementStrategy" . -}}
{{- if eq $strategy "spread" -}}
actions: "allocate, reclaim, preempt, stalegangeviction"
{{- else -}}
actions: "allocate, consolidation, reclaim, preempt, stalegangeviction"
{{- end }}
tiers:
- plugins:
  - name: predicates
  - name: proportion
  - name: priority
  - name: nodeavailability
  - name: resourcetype
  - name: podaffinity
  - name: elastic
  - name: kubeflow
  - name: ray
  - name: subgrouporder
  - name: taskorder
  - name: nominatednode
  - name: dynamicresources
  - name: minruntime
  - name: topology
  - name: snapshot
{{- if eq $strategy "spread" }}
  - name: gpuspread
{{- else }}
  - name: gpupack
{{- end }}
  - name: nodeplacement
    arguments:
      gpu: {{ $strategy }}
      cpu: {{ ternary "binpack" $strategy (eq $strategy "fragmentation") }}
{{- if ne $strategy "spread" }}
  - name: gpusharingorder
{{- end }}
{{- end -}}

{{/*
Labels of a component with its own pods (node agent, remediator). Called with
(dict "root" $ "component" "<name>"): its selector carries the component, so its pods are never
selected by the scheduler's Deployment or Service.
*/}}
{{- define "quotient.componentSelectorLabels" -}}
app.kubernetes.io/name: {{ include "quotient.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "quotient.componentLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .root.Chart.Name .root.Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "quotient.componentSelectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- end -}}
