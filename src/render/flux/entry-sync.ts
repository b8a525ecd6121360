/**
 * The entry folder as `flux bootstrap` applies it: when a Flux object written in the entry is
 * applied by nothing the repository holds (gotk-sync.yaml is a placeholder, or the
 * FluxInstance that syncs the folder comes from a chart), Flux's convention is a
 * Kustomization flux-system/flux-system over the folder, reading this repository. Without
 * it the entry's own Kustomizations, sources and controller manifests would be producers
 * and inputs only, never objects, and a PR changing them would show no change at all.
 */
import { posix } from 'node:path';
import { objectMeta } from '../../model/index.js';
import { FluxKustomization, KUSTOMIZE_GROUP, type Discovery, type FoundObject } from './objects.js';
import { normalizeFluxPath, normalizeGitUrl } from './sources.js';

/** Bootstrap's name, for the Kustomization and the GitRepository it reads. */
const BOOTSTRAP = 'flux-system';

/**
 * `found` with the bootstrap Kustomization when it needs one: some Kustomization or
 * HelmRelease written in the entry lies outside every path of a Kustomization that reads
 * this repository (or syncs a FluxInstance). A repository root entry gets none: bootstrap
 * applies a cluster's folder, and over the root it would apply every file twice. The
 * Kustomization has no file (FoundObject.file '').
 */
export function withEntrySync(found: Discovery, repoUrl: string | undefined): Discovery {
  if (found.entry === '.') return found;
  const taken = found.kustomizations.some((k) => {
    const meta = objectMeta(k.manifest);
    return meta.name === BOOTSTRAP && (meta.namespace ?? BOOTSTRAP) === BOOTSTRAP;
  });
  if (taken) return found;
  const syncs = new Set(found.instances.map((i) => `${i.file}:${i.line}`));
  const isSync = (k: FoundObject) => syncs.has(`${k.file}:${k.line}`);
  const roots = found.kustomizations
    .filter((k) => isSync(k) || readsRepository(k, found, repoUrl))
    .map((k) => normalizeFluxPath(pathOf(k)));
  const written = [...found.kustomizations.filter((k) => !isSync(k)), ...found.helmReleases];
  const applied = (file: string) =>
    roots.some((root) => root === '.' || isUnder(posix.dirname(file), root));
  if (written.every((w) => applied(w.file))) return found;
  const manifest = {
    apiVersion: `${KUSTOMIZE_GROUP}/v1`,
    kind: 'Kustomization',
    metadata: { name: BOOTSTRAP, namespace: BOOTSTRAP },
    spec: {
      interval: '10m0s',
      path: `./${found.entry}`,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: BOOTSTRAP },
    },
  };
  return {
    ...found,
    kustomizations: [...found.kustomizations, { manifest, file: '', line: 0 }],
  };
}

/** Whether `found` holds the bootstrap Kustomization withEntrySync adds. */
export function assumesBootstrap(found: Discovery): boolean {
  return found.kustomizations.some((k) => k.file === '');
}

function pathOf(k: FoundObject): string | undefined {
  const spec = FluxKustomization.safeParse(k.manifest).data?.spec;
  return spec?.path;
}

function isUnder(dir: string, root: string): boolean {
  return dir === root || dir.startsWith(`${root}/`);
}

/**
 * The Kustomization reads this repository as the render resolves sources: bootstrap's
 * GitRepository by its name, any other by its URL.
 */
function readsRepository(k: FoundObject, found: Discovery, repoUrl: string | undefined): boolean {
  const parsed = FluxKustomization.safeParse(k.manifest);
  if (!parsed.success) return false;
  const ref = parsed.data.spec.sourceRef;
  if (ref.kind !== 'GitRepository') return false;
  const namespace = ref.namespace ?? objectMeta(k.manifest).namespace ?? 'default';
  if (ref.name === BOOTSTRAP && namespace === BOOTSTRAP) return true;
  if (repoUrl === undefined) return false;
  const source = found.sources.find((s) => {
    const meta = objectMeta(s.manifest);
    return meta.kind === ref.kind && meta.name === ref.name && meta.namespace === namespace;
  });
  const url = (source?.manifest['spec'] as Record<string, unknown> | undefined)?.['url'];
  return typeof url === 'string' && normalizeGitUrl(url) === normalizeGitUrl(repoUrl);
}
