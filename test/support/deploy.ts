/**
 * fluxlens's own deployment (deploy/) for tests: its kustomize folders, copies of it in
 * scratch repositories, its render, and the pod templates of the rendered objects, read
 * through schemas of the few fields the checks need.
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { runCli } from './cli.js';
import { projectRoot } from './paths.js';

const deployDir = join(projectRoot, 'deploy');

/** A folder under deploy/ with a kustomization.yaml, and what that file declares. */
export interface KustomizeTarget {
  /** Relative to the repository root: `deploy/kubernetes/base`. */
  folder: string;
  kind: 'Kustomization' | 'Component';
}

/** Every kustomization and Component under deploy/ (kubernetes/ and flux/). */
export function kustomizeTargets(): KustomizeTarget[] {
  const found: KustomizeTarget[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'kustomization.yaml') {
        const doc = z
          .object({ kind: z.enum(['Kustomization', 'Component']) })
          .parse(parse(readFileSync(path, 'utf8')));
        found.push({ folder: relative(projectRoot, dir), kind: doc.kind });
      }
    }
  };
  walk(deployDir);
  return found.sort((a, b) => a.folder.localeCompare(b.folder));
}

/** Copies deploy/ into `dir` as `dir/deploy`. */
export function copyDeploy(dir: string): void {
  cpSync(deployDir, join(dir, 'deploy'), { recursive: true });
}

/**
 * Folders under deploy/kubernetes whose kustomization.yaml is a Kustomization, relative to
 * the repository root (`deploy/kubernetes/base`). Components render through the overlays
 * that use them.
 */
export function kustomizeFolders(): string[] {
  const root = join(deployDir, 'kubernetes');
  const found: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'kustomization.yaml') {
        const doc = z.object({ kind: z.string() }).parse(parse(readFileSync(path, 'utf8')));
        if (doc.kind === 'Kustomization') found.push(relative(projectRoot, dir));
      }
    }
  };
  walk(root);
  return found.sort();
}

const RenderedSchema = z.object({
  producers: z.array(z.object({ kind: z.string(), namespace: z.string(), name: z.string() })),
  objects: z.array(
    z.object({
      producer: z.object({ name: z.string() }),
      manifest: z.looseObject({
        kind: z.string(),
        metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
      }),
    }),
  ),
  errors: z.array(z.unknown()),
});

export type Rendered = z.infer<typeof RenderedSchema>;

/** `fluxlens render --output json` of `repo`; throws unless it exits 0 with nothing on stderr. */
export async function render(repo: string, ...args: string[]): Promise<Rendered> {
  const run = await runCli(['render', '--repo', repo, '--output', 'json', ...args]);
  if (run.code !== 0 || run.stderr !== '') {
    throw new Error(`fluxlens render exited ${run.code}: ${run.stderr}`);
  }
  return RenderedSchema.parse(JSON.parse(run.stdout));
}

export const manifests = (r: Rendered) => r.objects.map((o) => o.manifest);

export const named = (r: Rendered, kind: string, name: string) =>
  manifests(r).find((m) => m.kind === kind && m.metadata.name === name);

const SecurityContextSchema = z.object({
  runAsNonRoot: z.boolean().optional(),
  runAsUser: z.number().optional(),
  runAsGroup: z.number().optional(),
  privileged: z.boolean().optional(),
  allowPrivilegeEscalation: z.boolean().optional(),
  readOnlyRootFilesystem: z.boolean().optional(),
  capabilities: z
    .object({ drop: z.array(z.string()).optional(), add: z.array(z.string()).optional() })
    .optional(),
  seccompProfile: z.object({ type: z.string() }).optional(),
});

const ProbeSchema = z.looseObject({
  httpGet: z.object({ path: z.string(), port: z.union([z.string(), z.number()]) }).optional(),
  exec: z.object({ command: z.array(z.string()) }).optional(),
  failureThreshold: z.number().optional(),
  periodSeconds: z.number().optional(),
});

const ContainerSchema = z.object({
  name: z.string(),
  command: z.array(z.string()).optional(),
  args: z.array(z.string()).optional(),
  env: z
    .array(
      z.object({
        name: z.string(),
        value: z.string().optional(),
        valueFrom: z
          .object({
            secretKeyRef: z
              .object({ name: z.string(), key: z.string(), optional: z.boolean().optional() })
              .optional(),
          })
          .optional(),
      }),
    )
    .optional(),
  startupProbe: ProbeSchema.optional(),
  readinessProbe: ProbeSchema.optional(),
  livenessProbe: ProbeSchema.optional(),
  securityContext: SecurityContextSchema.optional(),
  resources: z
    .object({
      requests: z.record(z.string(), z.unknown()).optional(),
      limits: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  volumeMounts: z
    .array(z.object({ name: z.string(), mountPath: z.string(), subPath: z.string().optional() }))
    .optional(),
});

const VolumeSchema = z.looseObject({
  name: z.string(),
  emptyDir: z
    .object({ sizeLimit: z.string().optional(), medium: z.string().optional() })
    .optional(),
  secret: z
    .object({
      secretName: z.string(),
      optional: z.boolean().optional(),
      items: z.array(z.object({ key: z.string(), path: z.string() })).optional(),
    })
    .optional(),
  configMap: z.object({ name: z.string() }).optional(),
});

const PodSpecSchema = z.object({
  serviceAccountName: z.string().optional(),
  automountServiceAccountToken: z.boolean().optional(),
  hostNetwork: z.boolean().optional(),
  hostPID: z.boolean().optional(),
  hostIPC: z.boolean().optional(),
  securityContext: SecurityContextSchema.optional(),
  containers: z.array(ContainerSchema),
  initContainers: z.array(ContainerSchema).optional(),
  volumes: z.array(VolumeSchema).optional(),
});

export type PodSpec = z.infer<typeof PodSpecSchema>;
export type Container = z.infer<typeof ContainerSchema>;

const WorkloadKind = z.enum(['Deployment', 'StatefulSet']);

const WorkloadSchema = z.object({
  kind: WorkloadKind,
  metadata: z.object({
    name: z.string(),
    labels: z.record(z.string(), z.string()).optional(),
  }),
  spec: z.object({ replicas: z.number().optional(), template: z.object({ spec: PodSpecSchema }) }),
});

export interface Workload {
  /** `Deployment/fluxlens-server`. */
  label: string;
  component: string | undefined;
  pod: PodSpec;
}

/** The Deployments and StatefulSets among rendered manifests. */
export function workloads(manifests: readonly unknown[]): Workload[] {
  return manifests
    .filter((m) => z.object({ kind: WorkloadKind }).safeParse(m).success)
    .map((m) => WorkloadSchema.parse(m))
    .map((w) => ({
      label: `${w.kind}/${w.metadata.name}`,
      component: w.metadata.labels?.['app.kubernetes.io/component'],
      pod: w.spec.template.spec,
    }));
}

const RESTRICTED_VOLUMES = [
  'emptyDir',
  'secret',
  'configMap',
  'persistentVolumeClaim',
  'projected',
];

/**
 * What in a pod falls short of the restricted Pod Security Standard, or of what fluxlens
 * adds to it (no token, a read-only root, sized scratch space, resource limits, node disk
 * requested for the scratch space); empty when nothing does.
 */
export function lockdownGaps(pod: PodSpec): string[] {
  const gaps: string[] = [];
  const ctx = pod.securityContext;
  if (ctx?.runAsNonRoot !== true) gaps.push('pod: runAsNonRoot is not true');
  if (!ctx?.runAsUser) gaps.push('pod: no non-zero runAsUser');
  if (!ctx?.runAsGroup) gaps.push('pod: no non-zero runAsGroup');
  if (ctx?.seccompProfile?.type !== 'RuntimeDefault')
    gaps.push('pod: seccomp is not RuntimeDefault');
  if (pod.automountServiceAccountToken !== false) gaps.push('pod: mounts a service account token');
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) gaps.push('pod: shares a host namespace');
  for (const volume of pod.volumes ?? []) {
    const kind = Object.keys(volume).find((k) => k !== 'name') ?? '';
    if (!RESTRICTED_VOLUMES.includes(kind)) gaps.push(`volume ${volume.name}: type ${kind}`);
    if (volume.emptyDir && volume.emptyDir.sizeLimit === undefined) {
      gaps.push(`volume ${volume.name}: emptyDir without sizeLimit`);
    }
  }
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const all = [...containerGaps(c), ...diskGaps(pod, c)];
    gaps.push(...all.map((gap) => `container ${c.name}: ${gap}`));
  }
  return gaps;
}

/** Bytes of a Kubernetes quantity in the binary or decimal suffixes deploy/ uses. */
export function quantityBytes(quantity: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T|mb|gb)?$/.exec(quantity);
  if (!m) throw new Error(`not a quantity: ${quantity}`);
  const unit = {
    '': 1,
    Ki: 2 ** 10,
    Mi: 2 ** 20,
    Gi: 2 ** 30,
    Ti: 2 ** 40,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
    // redis.conf's units: mb and gb are binary there.
    mb: 2 ** 20,
    gb: 2 ** 30,
  }[m[2] ?? ''];
  return Number(m[1]) * (unit ?? 1);
}

/** The node-disk emptyDirs a container mounts (memory-backed ones count as memory). */
function diskScratch(pod: PodSpec, c: Container): number {
  return (c.volumeMounts ?? [])
    .map((mount) => pod.volumes?.find((v) => v.name === mount.name)?.emptyDir)
    .filter((dir) => dir !== undefined && dir.medium !== 'Memory')
    .reduce((sum, dir) => sum + quantityBytes(dir?.sizeLimit ?? '0'), 0);
}

function diskGaps(pod: PodSpec, c: Container): string[] {
  const request = c.resources?.requests?.['ephemeral-storage'];
  const limit = c.resources?.limits?.['ephemeral-storage'];
  if (typeof request !== 'string' || typeof limit !== 'string') {
    return ['no ephemeral-storage request and limit'];
  }
  const scratch = diskScratch(pod, c);
  const gaps: string[] = [];
  if (quantityBytes(request) < scratch) gaps.push('ephemeral-storage request below its emptyDirs');
  if (quantityBytes(limit) <= scratch) gaps.push('ephemeral-storage limit leaves no room for logs');
  return gaps;
}

function containerGaps(c: Container): string[] {
  const gaps: string[] = [];
  const ctx = c.securityContext;
  if (ctx?.privileged === true) gaps.push('privileged');
  if (ctx?.allowPrivilegeEscalation !== false) gaps.push('allowPrivilegeEscalation is not false');
  if (ctx?.readOnlyRootFilesystem !== true) gaps.push('root filesystem is writable');
  if (!(ctx?.capabilities?.drop ?? []).includes('ALL')) gaps.push('does not drop ALL capabilities');
  if ((ctx?.capabilities?.add ?? []).length > 0) gaps.push('adds capabilities');
  for (const resource of ['cpu', 'memory']) {
    if (c.resources?.requests?.[resource] === undefined) gaps.push(`no ${resource} request`);
    if (c.resources?.limits?.[resource] === undefined) gaps.push(`no ${resource} limit`);
  }
  return gaps;
}

/**
 * The container's environment as the process would see it: literal values with the
 * `$(NAME)` references to earlier variables put in as the kubelet does, Secret references
 * from `secretValue(key)`.
 */
export function containerEnv(container: Container, secretValue: (key: string) => string) {
  const env: Record<string, string> = {};
  for (const variable of container.env ?? []) {
    const ref = variable.valueFrom?.secretKeyRef;
    env[variable.name] = ref
      ? secretValue(ref.key)
      : (variable.value ?? '').replace(
          /\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
          (whole, name: string) => env[name] ?? whole,
        );
  }
  return env;
}

/** One key of a Secret that a pod reads, through a volume item or an env reference. */
export interface SecretKeyUse {
  secret: string;
  key: string;
  optional: boolean;
}

/** Every Secret key a pod mounts or puts in its environment. */
export function secretKeyUses(pod: PodSpec): SecretKeyUse[] {
  const uses: SecretKeyUse[] = [];
  for (const volume of pod.volumes ?? []) {
    const secret = volume.secret;
    if (!secret) continue;
    if (secret.items === undefined) throw new Error(`volume ${volume.name} mounts a whole Secret`);
    for (const item of secret.items) {
      uses.push({ secret: secret.secretName, key: item.key, optional: secret.optional === true });
    }
  }
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    for (const variable of c.env ?? []) {
      const ref = variable.valueFrom?.secretKeyRef;
      if (ref) uses.push({ secret: ref.name, key: ref.key, optional: ref.optional === true });
    }
  }
  return uses;
}

/**
 * `_FILE` variables whose file is not a Secret item mounted into the container: the
 * process would fail at startup reading it.
 */
export function unmountedSecretFiles(pod: PodSpec, container: Container): string[] {
  const files = new Set<string>();
  for (const mount of container.volumeMounts ?? []) {
    const volume = (pod.volumes ?? []).find((v) => v.name === mount.name);
    for (const item of volume?.secret?.items ?? []) files.add(`${mount.mountPath}/${item.path}`);
  }
  return (container.env ?? [])
    .filter((v) => v.name.endsWith('_FILE') && !files.has(v.value ?? ''))
    .map((v) => v.name);
}
