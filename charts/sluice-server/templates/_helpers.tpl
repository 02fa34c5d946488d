{{- define "sluice-server.fullname" -}}
{{- printf "%s-server" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sluice-server.labels" -}}
app.kubernetes.io/name: sluice-server
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: sluice
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "sluice-server.selector" -}}
app.kubernetes.io/name: sluice-server
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* What engines and agents are told: publicUrl, else the Service inside the cluster. */}}
{{- define "sluice-server.publicUrl" -}}
{{- default (printf "http://%s.%s.svc:%v" (include "sluice-server.fullname" .) .Release.Namespace .Values.service.port) .Values.publicUrl -}}
{{- end -}}
