/**
 * What one file of a repository leads a build to read besides itself, from its text
 * alone: a kustomization file's references (relative to its folder); a Flux
 * Kustomization's spec.path and components, a chart of a HelmRelease or HelmChart in a
 * source folder and its values files, a FluxInstance's sync path (from the root). Or that
 * it leads somewhere only rendering tells (a variable in a path, a patch that moves a
 * Kustomization), when every file must be written.
 */
import { apiGroup, type Manifest } from '../../../model/index.js';
import { normalizeFluxPath } from '../../flux/index.js';
import { referencedPaths } from '../../kustomize/index.js';
import { parseFileDocuments } from '../../../yaml/index.js';

export interface BlobLeads {
  /** Relative to the file's folder. */
  references: string[];
  /** Folders from the root, read whole. */
  folders: string[];
  /** Paths relative to a folder from the root. */
  relative: Array<{ from: string; path: string }>;
  /** Set when a build's reads cannot be told: why. */
  everyFile?: string;
}

export class EveryFile extends Error {}

/**
 * Text that may hold a Flux object with a path: a Kustomization, a FluxInstance, or a chart
 * from a source folder (a HelmRelease or HelmChart naming a GitRepository or Bucket).
 */
const LEADS = /\bkind["']?\s*:\s*["']?(Kustomization|FluxInstance)\b|\b(GitRepository|Bucket)\b/;

export function blobLeads(text: string, kustomizationFile: boolean): BlobLeads {
  const leads: BlobLeads = { references: [], folders: [], relative: [] };
  // Most YAML leads nowhere, and telling costs a parse.
  if (!kustomizationFile && !(text.includes('fluxcd') && LEADS.test(text))) return leads;
  try {
    for (const { manifest } of parseFileDocuments(text).documents) {
      if (kustomizationFile) {
        leads.references.push(...referencedPaths(manifest).map((r) => r.path));
        patchLeads(manifest, leads);
      } else fluxObjectLeads(manifest, leads);
    }
  } catch (err) {
    if (!(err instanceof EveryFile)) throw err;
    return { references: [], folders: [], relative: [], everyFile: err.message };
  }
  return leads;
}

function fluxObjectLeads(manifest: Manifest, leads: BlobLeads): void {
  const version = manifest['apiVersion'];
  const group = typeof version === 'string' ? apiGroup(version) : '';
  const kind = manifest['kind'];
  const spec = record(manifest['spec']);
  if (group === 'kustomize.toolkit.fluxcd.io' && kind === 'Kustomization') {
    // A patch of one names no source; it only moves a path it names.
    if (spec['path'] === undefined && spec['sourceRef'] === undefined) return;
    const path = fluxPath(spec['path']);
    leads.folders.push(path);
    for (const c of strings(spec['components'])) leads.relative.push({ from: path, path: c });
    patchLeads(spec, leads);
  } else if (group === 'helm.toolkit.fluxcd.io' && kind === 'HelmRelease') {
    chartLeads(record(record(spec['chart'])['spec']), leads);
  } else if (group === 'source.toolkit.fluxcd.io' && kind === 'HelmChart') {
    chartLeads(spec, leads);
  } else if (group === 'fluxcd.controlplane.io' && kind === 'FluxInstance') {
    const sync = record(spec['sync']);
    if (sync['path'] !== undefined) leads.folders.push(fluxPath(sync['path']));
  } else if (group === 'source.extensions.fluxcd.io' && kind === 'ArtifactGenerator') {
    throw new EveryFile('an ArtifactGenerator copies files by patterns');
  } else if (group === 'fluxcd.controlplane.io' && kind === 'ResourceSet') {
    throw new EveryFile('a ResourceSet templates the paths of what it applies');
  }
}

/** A chart in a source folder: its folder, and values files from the root or the chart. */
function chartLeads(chartSpec: Record<string, unknown>, leads: BlobLeads): void {
  const kind = record(chartSpec['sourceRef'])['kind'];
  if (kind !== 'GitRepository' && kind !== 'Bucket') return;
  const chart = fluxPath(chartSpec['chart']);
  leads.folders.push(chart);
  for (const file of [
    ...strings([chartSpec['valuesFile']]),
    ...strings(chartSpec['valuesFiles']),
  ]) {
    leads.relative.push({ from: '.', path: fluxPath(file) }, { from: chart, path: file });
  }
}

function fluxPath(value: unknown): string {
  if (value !== undefined && typeof value !== 'string') throw new EveryFile('a path is not text');
  if (value?.includes('$')) throw new EveryFile(`'${value}' holds a variable`);
  const path = normalizeFluxPath(value);
  if (path === '..' || path.startsWith('../'))
    throw new EveryFile(`'${path}' leaves the repository`);
  return path;
}

/**
 * Patches that may set a Kustomization's spec.path: a strategic-merge one leads to the
 * folder it names (also as a file, which is read as a manifest when it is written); a
 * JSON 6902 one on the spec, the path or the whole object, or a patch file aimed at
 * Kustomizations, leads where only rendering tells.
 */
function patchLeads(kus: Record<string, unknown>, leads: BlobLeads): void {
  const items = [
    ...list(kus['patches']),
    ...list(kus['patchesJson6902']),
    ...list(kus['patchesStrategicMerge']),
  ];
  for (const item of items) {
    const target = record(record(item)['target']);
    if (target['kind'] !== undefined && target['kind'] !== 'Kustomization') continue;
    const inline =
      typeof item === 'string' ? (item.includes('\n') ? item : undefined) : record(item)['patch'];
    if (typeof inline !== 'string') {
      if (target['kind'] === 'Kustomization')
        throw new EveryFile('a patch file targets Kustomizations');
      continue;
    }
    const body = inline.replace(/^(\s*#.*\n)*/, '').trimStart();
    if (body.startsWith('-') || body.startsWith('[')) {
      if (/["']?path["']?\s*:\s*["']?(\/spec(\/path)?|\/)?["']?\s*(,|}|$)/m.test(body))
        throw new EveryFile('a patch may move a Kustomization');
      continue;
    }
    for (const { manifest } of parseFileDocuments(inline).documents)
      fluxObjectLeads(manifest, leads);
  }
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: unknown): string[] {
  return list(value).filter((v): v is string => typeof v === 'string');
}
