/**
 * Stand-ins for the charts a real repository pulls: for every OCIRepository (chart name from
 * the URL's last segment, version from `spec.ref.tag`) a minimal chart of that name and
 * version, packaged by `helm package` and pushed by `helm push` to a local registry under
 * the source's own host and path (`oci://ghcr.io/a/b` is served as `oci://REGISTRY/ghcr.io/a/b`).
 * The chart renders one Deployment whose images come from the usual values (`image`, and
 * app-template's `controllers.*.containers.*.image`) and whose pod carries a checksum of
 * all values, so any change of a release's values shows in its output.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

export interface ChartRef {
  /** The source's URL without `oci://`: host and repository path, the chart's name last. */
  path: string;
  version: string;
}

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 });

/** Every OCIRepository's chart and tag in `commit`'s YAML files. */
export function chartRefs(repo: string, commit: string): ChartRef[] {
  let files: string[];
  try {
    files = git(repo, 'grep', '-l', 'kind: OCIRepository', commit, '--', '*.yaml', '*.yml')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.slice(commit.length + 1));
  } catch {
    return [];
  }
  const refs: ChartRef[] = [];
  for (const file of files) {
    for (const doc of parseAllDocuments(git(repo, 'show', `${commit}:${file}`))) {
      if (!('toJS' in doc)) continue;
      const object: unknown = doc.toJS();
      const ref = ociChart(object);
      if (ref !== undefined) refs.push(ref);
    }
  }
  return refs;
}

function ociChart(object: unknown): ChartRef | undefined {
  if (typeof object !== 'object' || object === null) return undefined;
  const o = object as { kind?: unknown; spec?: { url?: unknown; ref?: { tag?: unknown } } };
  const url = o.spec?.url;
  const tag = o.spec?.ref?.tag;
  if (o.kind !== 'OCIRepository' || typeof url !== 'string' || !url.startsWith('oci://'))
    return undefined;
  if (typeof tag !== 'string' && typeof tag !== 'number') return undefined;
  return { path: url.slice('oci://'.length).replace(/\/+$/, ''), version: String(tag) };
}

const DEPLOYMENT = `{{- $images := list }}
{{- if kindIs "map" .Values.image }}{{ $images = append $images .Values.image }}{{ end }}
{{- if kindIs "map" .Values.controllers }}
{{- range $controller := .Values.controllers }}
{{- if and (kindIs "map" $controller) (kindIs "map" $controller.containers) }}
{{- range $container := $controller.containers }}
{{- if and (kindIs "map" $container) (kindIs "map" $container.image) }}{{ $images = append $images $container.image }}{{ end }}
{{- end }}
{{- end }}
{{- end }}
{{- end }}
{{- if not $images }}{{ $images = list (dict "repository" "stub" "tag" .Chart.Version) }}{{ end }}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name | trunc 63 | trimSuffix "-" }}
  labels:
    app.kubernetes.io/name: {{ .Chart.Name }}
    app.kubernetes.io/instance: {{ .Release.Name }}
    helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | trunc 63 }}
spec:
  selector:
    matchLabels:
      app.kubernetes.io/instance: {{ .Release.Name }}
  template:
    metadata:
      labels:
        app.kubernetes.io/instance: {{ .Release.Name }}
      annotations:
        checksum/values: {{ toJson .Values | sha256sum }}
    spec:
      containers:
        {{- range $i, $image := $images }}
        - name: c{{ $i }}
          image: "{{ $image.repository | default "stub" }}:{{ $image.tag | default "latest" }}"
        {{- end }}
`;

/** The stub chart's files in `dir/name`; returns that folder. */
export function writeStubChart(dir: string, name: string, version: string): string {
  const chart = join(dir, name);
  mkdirSync(join(chart, 'templates'), { recursive: true });
  writeFileSync(
    join(chart, 'Chart.yaml'),
    `apiVersion: v2\nname: ${name}\nversion: ${version}\nappVersion: "${version}"\n`,
  );
  writeFileSync(join(chart, 'values.yaml'), '{}\n');
  writeFileSync(join(chart, 'templates', 'deployment.yaml'), DEPLOYMENT);
  return chart;
}

/**
 * Packages one stub chart per distinct reference and pushes it to `registry`
 * (`127.0.0.1:PORT`, plain HTTP); returns how many were pushed.
 */
export async function pushStubCharts(
  refs: readonly ChartRef[],
  registry: string,
  work: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const distinct = new Map(refs.map((r) => [`${r.path}:${r.version}`, r]));
  for (const [key, ref] of distinct) {
    const slash = ref.path.lastIndexOf('/');
    const name = ref.path.slice(slash + 1);
    const dir = join(work, 'stub-charts', key.replace(/[^\w.-]+/g, '_'));
    const chart = writeStubChart(dir, name, ref.version);
    execFileSync('helm', ['package', chart, '--destination', dir], { env, stdio: 'pipe' });
    const archive = join(dir, `${name}-${ref.version}.tgz`);
    const push = ['push', archive, `oci://${registry}/${ref.path.slice(0, slash)}`, '--plain-http'];
    // Not synchronous: the registry's log is a pipe this process must keep reading.
    await promisify(execFile)('helm', push, { env, timeout: 60_000 });
  }
  return distinct.size;
}
