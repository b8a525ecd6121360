/**
 * A HelmRelease keyed before its chart is resolved: the pre-key holds what the release's
 * key is made of but the chart folder (the release, its values and options, its
 * Secret-derived texts), and the source objects its chart comes from. A pinned chart (an
 * exact version, an OCI tag or digest) of a repository or registry names the same chart
 * whenever it is asked for, as the chart cache takes it; so when the review's other render
 * recorded the same pre-key, the release's key is the one it recorded, and the chart is
 * neither read from the cache, unpacked nor digested to tell. A chart from a folder of a
 * source (a GitRepository, a Bucket) is never carried: its files are not in the pre-key.
 */
import { isRecord, type Manifest, type ProducerRef } from '../../../model/index.js';
import { renderCacheKey } from '../../cache/index.js';
import type { HelmRelease } from '../../helm/index.js';
import { chartPinned, type KeepContext } from './whole-render.js';

export interface PreKeyParts {
  /** The tools a release runs (helm, kustomize for post-renderers), as its key names them. */
  tool: string;
  ref: ProducerRef;
  manifest: Manifest;
  hr: HelmRelease;
  secretValues: readonly string[];
  /** The template options, which hold the composed values. */
  options: Record<string, unknown>;
  assumed: readonly string[];
}

/** Undefined when the release's key cannot be told without its chart. */
export function releasePreKey(
  parts: PreKeyParts,
  lookup: KeepContext['lookup'],
): string | undefined {
  const { tool, ref, manifest, hr, secretValues, options, assumed } = parts;
  if (!chartPinned(manifest, ref, lookup)) return undefined;
  const sources = chartSourceObjects(hr, ref.namespace, lookup);
  if (sources === undefined) return undefined;
  return renderCacheKey(['release-pre/1', tool, ref, hr, secretValues, options, assumed, sources]);
}

/**
 * The repository or registry objects the chart comes from: a HelmRepository or an
 * OCIRepository, or a HelmChart and the HelmRepository it names. Undefined for a source
 * folder, or an object the cluster does not hold.
 */
function chartSourceObjects(
  hr: HelmRelease,
  namespace: string,
  lookup: KeepContext['lookup'],
): Manifest[] | undefined {
  const first = hr.spec.chartRef ?? hr.spec.chart?.spec.sourceRef;
  if (first === undefined) return undefined;
  const ns = first.namespace ?? namespace;
  const object = lookup(first.kind, ns, first.name);
  if (object === undefined) return undefined;
  if (first.kind === 'HelmRepository' || first.kind === 'OCIRepository') return [object];
  if (first.kind !== 'HelmChart') return undefined;
  const spec = isRecord(object['spec']) ? object['spec'] : {};
  const source = isRecord(spec['sourceRef']) ? spec['sourceRef'] : {};
  if (source['kind'] !== 'HelmRepository' || typeof source['name'] !== 'string') return undefined;
  const repository = lookup('HelmRepository', ns, source['name']);
  return repository === undefined ? undefined : [object, repository];
}
