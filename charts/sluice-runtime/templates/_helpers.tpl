{{/* The name of every object, from the release. */}}
{{- define "sluice-runtime.fullname" -}}
{{- printf "%s-agent" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* The runtime namespace: where the build objects and the agent's Role live. */}}
{{- define "sluice-runtime.namespace" -}}
{{- default .Release.Namespace .Values.runtime.namespace -}}
{{- end -}}

{{- define "sluice-runtime.serviceAccountName" -}}
{{- default (include "sluice-runtime.fullname" .) .Values.agent.serviceAccount.name -}}
{{- end -}}

{{- define "sluice-runtime.secretName" -}}
{{- default (include "sluice-runtime.fullname" .) .Values.agent.existingSecret.name -}}
{{- end -}}

{{/* The release with its namespace names one install: `sluice runner delete` selects by both. */}}
{{- define "sluice-runtime.labels" -}}
app.kubernetes.io/name: sluice-agent
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: sluice
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
sluice.io/install-namespace: {{ .Release.Namespace }}
{{- end -}}

{{- define "sluice-runtime.selector" -}}
app.kubernetes.io/name: sluice-agent
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "sluice-runtime.provisionerLabels" -}}
app.kubernetes.io/name: sluice-provisioner
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: sluice
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
sluice.io/install-namespace: {{ .Release.Namespace }}
{{- end -}}

{{/* "true" when the values ask for a warm pool (either of its sizes above 0), else empty. */}}
{{- define "sluice-runtime.warmPool" -}}
{{- $pool := .Values.runtime.warmPool | default dict -}}
{{- if or (gt (int ($pool.minSize | default 0)) 0) (gt (int ($pool.maxSize | default 0)) 0) -}}
true
{{- end -}}
{{- end -}}

{{/* The warm pool's PriorityClass: cluster-wide, so named by the release and its namespace. */}}
{{- define "sluice-runtime.warmPoolPriorityClass" -}}
{{- printf "sluice-warm-pool-%s-%s" .Release.Namespace .Release.Name -}}
{{- end -}}

{{/* The PriorityClass of the pods builds make of their own beside the pool: never preempting. */}}
{{- define "sluice-runtime.warmPoolBuildPriorityClass" -}}
{{- printf "sluice-build-%s-%s" .Release.Namespace .Release.Name -}}
{{- end -}}
