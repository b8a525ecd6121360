/**
 * What helm-controller does to a chart's rendered objects on their way to the cluster:
 * its post-renderer chain (spec.postRenderers' kustomize entries in order, then
 * commonMetadata, then the helm.toolkit.fluxcd.io origin labels), origin labels on the
 * crds/ objects it applies itself, and the release namespace for namespaced objects
 * that name none. kustomize runs only for kustomize post-renderers.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { ToolError, type ToolRunner } from '../../tool-runner.js';
import { kustomizeBuild } from '../kustomize/index.js';
import {
  type Manifest,
  apiGroup,
  objectMeta,
  stringifyManifest,
  stringifyStream,
} from '../../model/index.js';
import { parseDocuments } from '../../yaml/index.js';
import type { HelmRelease, PostRenderer } from './helm-release.js';
import type { ChartRender } from './template.js';
import { FluxlensError } from '../../errors.js';

/** A post-render step failed the way helm-controller's would; the message says why. */
export class PostRenderError extends FluxlensError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid-content', message, options);
    this.name = 'PostRenderError';
  }
}

export interface PostRenderKustomizeOptions {
  timeoutMs: number;
  maxOutputBytes: number;
}

export const ORIGIN_NAME_LABEL = 'helm.toolkit.fluxcd.io/name';
export const ORIGIN_NAMESPACE_LABEL = 'helm.toolkit.fluxcd.io/namespace';
const HOOK_ANNOTATION = 'helm.sh/hook';
const INPUT_FILE = 'helm-output.yaml';

/**
 * spec.postRenderStrategy: which hooks go through the post-renderer chain. 'combined'
 * (hooks and templates in one stream) is helm-controller's default, 'nohooks' its
 * default under the UseHelm3Defaults feature gate (internal/action/post_render.go).
 */
const PostRenderStrategy = z.enum(['nohooks', 'combined', 'separate']).default('combined');

/**
 * `rendered` is helmTemplate's result; `releaseNamespace` the namespace helm installs
 * into. The HelmRelease's own name and namespace go into the origin labels. Returns new
 * objects: crds/ objects first, then templates and hooks.
 */
export async function postRender(
  runner: ToolRunner,
  rendered: ChartRender,
  hr: HelmRelease,
  releaseNamespace: string,
  scratchDir: string,
  kustomizeOpts: PostRenderKustomizeOptions,
): Promise<Manifest[]> {
  const strategy = PostRenderStrategy.safeParse(hr.spec['postRenderStrategy']);
  if (!strategy.success) {
    throw new PostRenderError(`invalid postRenderStrategy: expected nohooks, combined or separate`);
  }
  const objects = flattenLists(structuredClone(rendered.objects));
  const templates = objects.filter((o) => !isHook(o));
  const hooks = objects.filter(isHook);
  const streams = {
    combined: [[...templates, ...hooks]],
    separate: [templates, hooks],
    nohooks: [templates],
  }[strategy.data];
  const crds = flattenLists(structuredClone(rendered.crds));
  crds.forEach((crd) => setOriginLabels(crd, hr));
  const out = [...crds];
  const chain = { runner, hr, scratchDir, kustomizeOpts };
  for (const stream of streams) out.push(...(await runChain(chain, stream)));
  if (strategy.data === 'nohooks') out.push(...hooks);
  const clusterScoped = clusterScopedKinds(out);
  for (const object of out) placeInNamespace(object, releaseNamespace, clusterScoped);
  return out;
}

interface Chain {
  runner: ToolRunner;
  hr: HelmRelease;
  scratchDir: string;
  kustomizeOpts: PostRenderKustomizeOptions;
}

/**
 * One stream through helm-controller's combined post-renderer. Every step after the
 * kustomize entries reads the stream into a kustomize resource map, which refuses
 * objects without kind or name and two objects with one id: checked here as well,
 * since no kustomize runs without kustomize entries.
 */
async function runChain(chain: Chain, stream: Manifest[]): Promise<Manifest[]> {
  if (stream.length === 0) return stream;
  checkResourceIds(stream);
  let objects = stream;
  const legacyPatches = /\/v2beta[12]$/.test(chain.hr.apiVersion);
  for (const renderer of chain.hr.spec.postRenderers ?? []) {
    if (!renderer.kustomize) continue;
    const kustomization = postRendererKustomization(renderer.kustomize, legacyPatches);
    objects = await kustomizeObjects(chain, objects, kustomization);
  }
  checkResourceIds(objects);
  const common = chain.hr.spec.commonMetadata;
  for (const object of objects) {
    if (common?.labels) Object.assign(metadataMap(object, 'labels'), common.labels);
    if (common?.annotations) Object.assign(metadataMap(object, 'annotations'), common.annotations);
    setOriginLabels(object, chain.hr);
  }
  return objects;
}

/**
 * The kustomization helm-controller's kustomize post-renderer builds: the rendered
 * objects as its only resource, the entry's patches and images, nothing else (no
 * namespace, no labels) and no reordering (krusty without a sort option keeps input
 * order). patchesStrategicMerge and patchesJson6902 exist only in the v2beta1/v2beta2
 * APIs, whose controllers passed them to kustomize as JSON text; the v2 API has no such
 * fields, so a v2 HelmRelease carrying them has them pruned by the API server.
 */
function postRendererKustomization(
  spec: NonNullable<PostRenderer['kustomize']>,
  legacyPatches: boolean,
): Manifest {
  const kus: Manifest = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: [INPUT_FILE],
    sortOptions: { order: 'fifo' },
  };
  if (legacyPatches && spec.patchesStrategicMerge?.length) {
    kus['patchesStrategicMerge'] = spec.patchesStrategicMerge.map((p) => JSON.stringify(p));
  }
  if (legacyPatches && spec.patchesJson6902?.length) {
    kus['patchesJson6902'] = spec.patchesJson6902.map((p) => ({
      patch: JSON.stringify(p.patch),
      target: withoutEmpty(p.target),
    }));
  }
  if (spec.patches?.length) {
    kus['patches'] = spec.patches.map((p) =>
      p.target ? { patch: p.patch, target: withoutEmpty(p.target) } : { patch: p.patch },
    );
  }
  if (spec.images?.length) kus['images'] = spec.images.map((image) => withoutEmpty(image));
  return kus;
}

/** Go's omitempty: unset and empty fields are not written. */
function withoutEmpty(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== ''));
}

async function kustomizeObjects(
  chain: Chain,
  objects: Manifest[],
  kustomization: Manifest,
): Promise<Manifest[]> {
  await mkdir(chain.scratchDir, { recursive: true });
  const dir = await mkdtemp(join(chain.scratchDir, 'helm-post-render-'));
  try {
    await writeFile(join(dir, INPUT_FILE), stringifyStream(objects));
    await writeFile(join(dir, 'kustomization.yaml'), stringifyManifest(kustomization));
    let output: string;
    try {
      output = await kustomizeBuild(chain.runner, dir, {
        allowRemoteBases: false,
        enableExecPlugins: false,
        ...chain.kustomizeOpts,
      });
    } catch (err) {
      if (!(err instanceof ToolError)) throw err;
      throw new PostRenderError(`post-renderer failed: ${kustomizeMessage(err, dir)}`, {
        cause: err,
      });
    }
    const parsed = parseDocuments(output);
    if (parsed.error) throw new PostRenderError('post-renderer produced unreadable YAML');
    return parsed.documents.map((d) => d.manifest);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** kustomize's own words, without the build folder's path. */
function kustomizeMessage(err: ToolError, dir: string): string {
  const text = err.stderrTail ? err.stderrTail.replace(/^Error: /, '') : err.message;
  return text.split(`${dir}/`).join('').split(dir).join('.');
}

/** kustomize's resource-map rules: a kind and a name, and one object per id. */
function checkResourceIds(objects: readonly Manifest[]): void {
  const clusterScoped = clusterScopedKinds(objects);
  const seen = new Set<string>();
  for (const object of objects) {
    const meta = objectMeta(object);
    if (!meta.kind) throw new PostRenderError('post-renderer failed: missing kind in object');
    if (!meta.name) {
      throw new PostRenderError(`post-renderer failed: missing metadata.name in a ${meta.kind}`);
    }
    const group = apiGroup(meta.apiVersion);
    const version = meta.apiVersion.slice(meta.apiVersion.indexOf('/') + 1);
    // kustomize counts an unset namespace as 'default' and ignores it on cluster-scoped kinds.
    const namespace = clusterScoped.has(`${group}/${meta.kind}`)
      ? ''
      : (meta.namespace ?? 'default');
    const id = `${meta.kind}.${version}.${group || '[noGrp]'}/${meta.name}.${namespace || '[noNs]'}`;
    if (seen.has(id)) {
      throw new PostRenderError(
        `post-renderer failed: may not add resource with an already registered id: ${id}`,
      );
    }
    seen.add(id);
  }
}

function isHook(object: Manifest): boolean {
  return objectMeta(object).annotations[HOOK_ANNOTATION] !== undefined;
}

/**
 * helm-controller's origin labels: the HelmRelease's name and namespace (not the release
 * namespace), set over any chart value (internal/postrender, internal/action/crds.go).
 */
function setOriginLabels(object: Manifest, hr: HelmRelease): void {
  const labels = metadataMap(object, 'labels');
  labels[ORIGIN_NAME_LABEL] = hr.metadata.name;
  labels[ORIGIN_NAMESPACE_LABEL] = hr.metadata.namespace ?? 'default';
}

function metadata(object: Manifest): Record<string, unknown> {
  const existing = object['metadata'];
  if (existing && typeof existing === 'object' && !Array.isArray(existing)) {
    return existing as Record<string, unknown>;
  }
  const created: Record<string, unknown> = {};
  object['metadata'] = created;
  return created;
}

function metadataMap(object: Manifest, field: 'labels' | 'annotations'): Record<string, unknown> {
  const meta = metadata(object);
  const existing = meta[field];
  if (existing && typeof existing === 'object' && !Array.isArray(existing)) {
    return existing as Record<string, unknown>;
  }
  const created: Record<string, unknown> = {};
  meta[field] = created;
  return created;
}

/**
 * kustomize's resource reader and helm's kube client both unpack `*List` objects into
 * their items; a `*List` without items stays an object.
 */
function flattenLists(objects: Manifest[]): Manifest[] {
  const out: Manifest[] = [];
  const queue = [...objects];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const kind = next['kind'];
    const items = next['items'];
    if (typeof kind !== 'string' || !kind.endsWith('List') || !('items' in next)) {
      out.push(next);
      continue;
    }
    if (!Array.isArray(items)) {
      if (items === null) continue;
      throw new PostRenderError(`expected array in ${kind}/items`);
    }
    const inner = items.filter((i): i is Manifest => !!i && typeof i === 'object');
    queue.unshift(...inner);
  }
  return out;
}

/**
 * helm's kube client gives a namespace-less object the release namespace only when the
 * cluster's REST mapper calls its kind namespaced; cluster-scoped objects stay without
 * one. An explicit namespace is kept.
 */
function placeInNamespace(object: Manifest, namespace: string, clusterScoped: Set<string>) {
  const meta = objectMeta(object);
  if (meta.namespace !== undefined) return;
  if (clusterScoped.has(`${apiGroup(meta.apiVersion)}/${meta.kind}`)) return;
  metadata(object)['namespace'] = namespace;
}

/**
 * Cluster-scoped kinds as `group/Kind` (core group empty). fluxlens has no cluster to
 * ask, so this list stands in for the REST mapper: the built-in cluster-scoped APIs,
 * then common add-ons. Any other kind counts as namespaced, except kinds whose
 * CustomResourceDefinition with `scope: Cluster` is among the rendered objects.
 */
const CLUSTER_SCOPED_KINDS: readonly string[] = [
  // Kubernetes built-ins.
  '/Namespace',
  '/Node',
  '/PersistentVolume',
  '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole',
  'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass',
  'storage.k8s.io/CSIDriver',
  'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment',
  'storage.k8s.io/VolumeAttributesClass',
  'scheduling.k8s.io/PriorityClass',
  'networking.k8s.io/IngressClass',
  'networking.k8s.io/IPAddress',
  'networking.k8s.io/ServiceCIDR',
  'node.k8s.io/RuntimeClass',
  'policy/PodSecurityPolicy',
  'certificates.k8s.io/CertificateSigningRequest',
  'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema',
  'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'resource.k8s.io/DeviceClass',
  'resource.k8s.io/ResourceSlice',
  'storagemigration.k8s.io/StorageVersionMigration',
  // Add-ons charts commonly ship.
  'snapshot.storage.k8s.io/VolumeSnapshotClass',
  'snapshot.storage.k8s.io/VolumeSnapshotContent',
  'gateway.networking.k8s.io/GatewayClass',
  'policy.networking.k8s.io/AdminNetworkPolicy',
  'policy.networking.k8s.io/BaselineAdminNetworkPolicy',
  'cert-manager.io/ClusterIssuer',
  'external-secrets.io/ClusterSecretStore',
  'external-secrets.io/ClusterExternalSecret',
  'kyverno.io/ClusterPolicy',
  'kyverno.io/ClusterCleanupPolicy',
  'templates.gatekeeper.sh/ConstraintTemplate',
  'cilium.io/CiliumClusterwideNetworkPolicy',
  'cilium.io/CiliumNode',
  'cilium.io/CiliumIdentity',
  'cilium.io/CiliumLoadBalancerIPPool',
  'karpenter.sh/NodePool',
  'karpenter.sh/NodeClaim',
  'karpenter.k8s.aws/EC2NodeClass',
];

function clusterScopedKinds(objects: readonly Manifest[]): Set<string> {
  const kinds = new Set(CLUSTER_SCOPED_KINDS);
  for (const object of objects) {
    if (object['kind'] !== 'CustomResourceDefinition') continue;
    const parsed = ClusterCrd.safeParse(object);
    if (parsed.success && parsed.data.spec.scope === 'Cluster') {
      kinds.add(`${parsed.data.spec.group}/${parsed.data.spec.names.kind}`);
    }
  }
  return kinds;
}

const ClusterCrd = z.looseObject({
  spec: z.looseObject({
    group: z.string(),
    scope: z.string(),
    names: z.looseObject({ kind: z.string() }),
  }),
});
