/**
 * The kustomization file kustomize-controller builds for a Flux Kustomization: the one
 * at its path (or one generated from the folder's YAML files when there is none), with
 * the Kustomization's spec fields merged in. Pure computation over a folder; writing
 * the result is the caller's business.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { MAX_YAML_FILE_BYTES, parseFileDocuments, TOO_BIG } from '../../yaml/index.js';
import { type FluxKustomization, KUSTOMIZATION_FILE_NAMES } from '../flux/index.js';
import { FluxlensError } from '../../errors.js';

/** Top-level fields of kustomize's Kustomization type; Flux's typed round trip drops others. */
const KNOWN_FIELDS = new Set(
  (
    'apiVersion kind bases buildMetadata commonAnnotations commonLabels components ' +
    'configMapGenerator configurations crds generatorOptions generators ' +
    'helmChartInflationGenerator helmCharts helmGlobals imageTags images labels metadata ' +
    'namePrefix nameSuffix namespace openapi patches patchesJson6902 patchesStrategicMerge ' +
    'replacements replicas resources secretGenerator sortOptions transformers validators vars'
  ).split(' '),
);

export interface GeneratedKustomization {
  /** The file to write (an existing kustomization file, or kustomization.yaml). */
  fileName: string;
  content: Record<string, unknown>;
  /** True when the folder had no kustomization file and Flux generated one. */
  generated: boolean;
  /** True when Flux itself asks kustomize for origin annotations on this build. */
  fluxWantsOrigin: boolean;
}

export class GenerateError extends FluxlensError {
  constructor(
    message: string,
    readonly file?: string,
  ) {
    super('invalid-content', message);
    this.name = 'GenerateError';
  }
}

export async function findKustomizationFile(dir: string): Promise<string | undefined> {
  for (const name of KUSTOMIZATION_FILE_NAMES) {
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile()) return name;
  }
  return undefined;
}

/**
 * `dir` is the Kustomization's path inside the build copy; `relDir` the same path
 * relative to the source root, used in error messages.
 */
export async function generateKustomization(
  dir: string,
  relDir: string,
  ks: FluxKustomization,
): Promise<GeneratedKustomization> {
  const existing = await findKustomizationFile(dir);
  let kus: Record<string, unknown>;
  if (existing) {
    const path = join(dir, existing);
    const parsed =
      (await stat(path)).size > MAX_YAML_FILE_BYTES
        ? { error: TOO_BIG, documents: [] }
        : parseFileDocuments(await readFile(path, 'utf8'));
    if (parsed.error) {
      throw new GenerateError(`invalid ${existing}: ${parsed.error}`, joinRel(relDir, existing));
    }
    kus = {};
    for (const [key, value] of Object.entries(parsed.documents[0]?.manifest ?? {})) {
      if (KNOWN_FIELDS.has(key)) kus[key] = value;
    }
  } else {
    const resources = await scanManifests(dir, '', relDir);
    kus = resources.length === 0 ? { namespace: '_placeholder' } : { resources };
  }
  kus['apiVersion'] ??= 'kustomize.config.k8s.io/v1beta1';
  kus['kind'] ??= 'Kustomization';
  const fluxWantsOrigin = mergeSpec(kus, ks, existing !== undefined);
  return {
    fileName: existing ?? 'kustomization.yaml',
    content: kus,
    generated: !existing,
    fluxWantsOrigin,
  };
}

function joinRel(relDir: string, name: string): string {
  return relDir === '.' || relDir === '' ? name : `${relDir}/${name}`;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0);
}

/** Merges the Flux spec fields into kus; returns whether originAnnotations end up requested. */
function mergeSpec(kus: Record<string, unknown>, ks: FluxKustomization, existed: boolean): boolean {
  const spec = ks.spec;
  if (existed && isEmpty(kus['resources'])) kus['buildMetadata'] = ['originAnnotations'];
  if (spec.targetNamespace !== undefined) kus['namespace'] = spec.targetNamespace;
  if (spec.namePrefix !== undefined) kus['namePrefix'] = spec.namePrefix;
  if (spec.nameSuffix !== undefined) kus['nameSuffix'] = spec.nameSuffix;
  for (const p of spec.patches ?? []) {
    append(kus, 'patches', p.target ? { patch: p.patch, target: p.target } : { patch: p.patch });
  }
  for (const component of spec.components ?? []) {
    if (!isLocalRelativePath(component)) {
      throw new GenerateError(`component path '${component}' must be local and relative`);
    }
    append(kus, 'components', component);
  }
  // Flux writes each inline patch as its JSON text: kustomize's field is a list of strings.
  for (const p of spec.patchesStrategicMerge ?? [])
    append(kus, 'patchesStrategicMerge', JSON.stringify(p));
  for (const p of spec.patchesJson6902 ?? []) {
    append(kus, 'patchesJson6902', { patch: JSON.stringify(p.patch), target: p.target });
  }
  mergeImages(kus, spec.images ?? []);
  if (spec.buildMetadata && spec.buildMetadata.length > 0)
    kus['buildMetadata'] = spec.buildMetadata;
  const meta = kus['buildMetadata'];
  return Array.isArray(meta) && meta.includes('originAnnotations');
}

function append(kus: Record<string, unknown>, field: string, value: unknown): void {
  const list = Array.isArray(kus[field]) ? (kus[field] as unknown[]) : [];
  kus[field] = [...list, value];
}

type Image = {
  name: string;
  newName?: string | undefined;
  newTag?: string | undefined;
  digest?: string | undefined;
};

function mergeImages(kus: Record<string, unknown>, images: readonly Image[]): void {
  if (images.length === 0) return;
  const list = (Array.isArray(kus['images']) ? [...(kus['images'] as Image[])] : []).map((i) => ({
    ...i,
  }));
  for (const image of images) {
    const existing = list.find((i) => i.name === image.name);
    if (!existing) {
      list.push(
        stripUndefined({
          name: image.name,
          newName: image.newName,
          newTag: image.newTag,
          digest: image.digest,
        }),
      );
      continue;
    }
    if (image.newName) existing.newName = image.newName;
    if (image.newTag || image.digest) {
      existing.newTag = image.newTag;
      existing.digest = image.digest;
    }
  }
  kus['images'] = list.map(stripUndefined);
}

function stripUndefined<T extends object>(value: T): T {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined && v !== ''),
  ) as T;
}

/** Mirrors Flux: remote URLs and absolute paths are not allowed as components. */
export function isLocalRelativePath(path: string): boolean {
  const lower = path.toLowerCase();
  const remote = [
    'git::',
    'gh:',
    'ssh://',
    'https://',
    'http://',
    'git@',
    'github.com:',
    'github.com/',
  ];
  if (remote.some((p) => p.length < path.length && lower.startsWith(p))) return false;
  return !path.startsWith('/') && !lower.replace(/^file:\/\//, '').startsWith('/');
}

/**
 * Flux's folder scan: every .yaml/.yml file that parses as Kubernetes YAML, recursively;
 * a subfolder with its own kustomization file is listed as one resource, not descended.
 * A file that does not parse fails the whole Kustomization, as in Flux.
 */
async function scanManifests(root: string, rel: string, relDir: string): Promise<string[]> {
  const out: string[] = [];
  const entries = await readdir(join(root, rel), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const childRel = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (await findKustomizationFile(join(root, childRel))) out.push(`./${childRel}`);
      else out.push(...(await scanManifests(root, childRel, relDir)));
      continue;
    }
    // Symlinked files are read through the link, as Flux's walk does.
    if (!(entry.isFile() || entry.isSymbolicLink()) || !/\.ya?ml$/.test(entry.name)) continue;
    const path = join(root, childRel);
    const parsed =
      (await stat(path)).size > MAX_YAML_FILE_BYTES
        ? { error: TOO_BIG, documents: [] }
        : parseFileDocuments(await readFile(path, 'utf8'));
    const bad = parsed.error ?? kubernetesShapeError(parsed.documents.map((d) => d.manifest));
    if (bad) {
      const file = joinRel(relDir, childRel);
      throw new GenerateError(`failed to decode Kubernetes YAML from ${file}: ${bad}`, file);
    }
    out.push(`./${childRel}`);
  }
  return out;
}

/** kustomize's resource factory rejects documents without apiVersion and kind. */
function kubernetesShapeError(docs: readonly Record<string, unknown>[]): string | undefined {
  for (const doc of docs) {
    if (doc['kind'] === 'List' || Array.isArray(doc['items'])) continue;
    if (typeof doc['kind'] !== 'string' || doc['kind'] === '') return 'missing kind';
    if (typeof doc['apiVersion'] !== 'string') return 'missing apiVersion';
  }
  return undefined;
}
