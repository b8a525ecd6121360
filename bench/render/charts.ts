/**
 * The source files of the fleet's charts, one set per chart and version. Version 1.1.0 is
 * what the chart-bump branch moves to: one more label on every object, a different
 * default CPU limit and a PodDisruptionBudget, the kind of change a real bump brings.
 */
import type { ChartName } from './fleet-apps.js';

const HELPERS = `{{- define "bench.fullname" -}}
{{ .Release.Name | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{- define "bench.selector" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "bench.labels" -}}
{{ include "bench.selector" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- if semverCompare ">=1.1.0" .Chart.Version }}
bench.fluxlens.io/generation: "2"
{{- end }}
{{- with .Values.extraLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}
`;

const POD = `    metadata:
      labels:
        {{- include "bench.selector" . | nindent 8 }}
      annotations:
        checksum/config: {{ toJson .Values.config | sha256sum }}
    spec:
      serviceAccountName: {{ include "bench.fullname" . }}
      containers:
        - name: main
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          env:
            - name: CLUSTER
              value: {{ .Values.cluster | quote }}
          envFrom:
            - configMapRef:
                name: {{ include "bench.fullname" . }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
`;

/** The Deployment the web and worker charts share. */
const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "bench.selector" . | nindent 6 }}
  template:
${POD}`;

const WORKLOAD: Record<ChartName, string> = {
  'bench-web': `${DEPLOYMENT}---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  selector:
    {{- include "bench.selector" . | nindent 4 }}
  ports:
    - name: http
      port: 80
      targetPort: 8080
{{- if .Values.ingress.enabled }}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  rules:
    - host: {{ .Values.ingress.host | quote }}
      http:
        paths:
          - path: /
            pathType: Prefix
            backend:
              service:
                name: {{ include "bench.fullname" . }}
                port:
                  name: http
{{- end }}
`,
  'bench-worker': DEPLOYMENT,
  'bench-cache': `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  serviceName: {{ include "bench.fullname" . }}
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "bench.selector" . | nindent 6 }}
  template:
${POD}  volumeClaimTemplates:
    - metadata:
        name: data
      spec:
        accessModes: [ReadWriteOnce]
        resources:
          requests:
            storage: {{ .Values.persistence.size }}
`,
  'bench-job': `apiVersion: batch/v1
kind: CronJob
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  schedule: {{ .Values.schedule | quote }}
  jobTemplate:
    spec:
      template:
        metadata:
          labels:
            {{- include "bench.selector" . | nindent 12 }}
        spec:
          restartPolicy: OnFailure
          serviceAccountName: {{ include "bench.fullname" . }}
          containers:
            - name: main
              image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
`,
};

const COMMON = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
data:
  {{- range $key, $value := .Values.config }}
  {{ $key }}: {{ $value | quote }}
  {{- end }}
`;

const BUDGET = `{{- if ne .Chart.Name "bench-job" }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  maxUnavailable: 1
  selector:
    matchLabels:
      {{- include "bench.selector" . | nindent 6 }}
{{- end }}
`;

function values(chart: ChartName, version: string): string {
  const cpu = version === '1.0.0' ? '500m' : '1';
  return `replicaCount: 1
image:
  repository: registry.example.com/platform/${chart}
  tag: "1.0.0"
cluster: unknown
extraLabels: {}
config: {}
resources:
  requests:
    cpu: 50m
    memory: 64Mi
  limits:
    cpu: ${cpu}
    memory: 256Mi
ingress:
  enabled: false
  host: ""
persistence:
  size: 1Gi
schedule: "0 0 * * *"
`;
}

/** Chart-relative paths and contents of `chart` at `version`. */
export function chartFiles(chart: ChartName, version: string): Record<string, string> {
  const files: Record<string, string> = {
    'Chart.yaml': `apiVersion: v2\nname: ${chart}\nversion: ${version}\nappVersion: "${version}"\ntype: application\n`,
    'values.yaml': values(chart, version),
    'templates/_helpers.tpl': HELPERS,
    'templates/common.yaml': COMMON,
    'templates/workload.yaml': WORKLOAD[chart],
  };
  if (version !== '1.0.0') files['templates/budget.yaml'] = BUDGET;
  return files;
}
