/**
 * When a render of a commit may be kept whole and read back for the same commit: the key
 * names the commit and everything else the render depends on, and a render is kept only
 * when nothing outside that key shaped it but charts that could not be fetched and that
 * the unavailable memory holds: it is read back only while the memory holds each of those
 * failures (engine-reuse.ts), which is when rendering again would fail them the same way.
 * A kept render also hands its producers' outcomes to the review's other render, as
 * rendering them would have.
 */
import {
  isRecord,
  isUnavailable,
  producerKey,
  type Manifest,
  type ProducerRef,
  type RenderedCluster,
} from '../../../model/index.js';
import type { MemoOutcome, RenderMemo } from '../../cache/index.js';
import { parseStrictVersion } from '../../helm/index.js';

/** What a keepable render is judged on besides itself (see keepsWhole). */
export interface KeepContext {
  /** Files of the revision the clone lacks: a later fetch may bring them. */
  lacking: ReadonlySet<string>;
  definitions: ReadonlyArray<{ ref: ProducerRef; manifest: Manifest }>;
  lookup: (kind: string, namespace: string, name: string) => Manifest | undefined;
}

/**
 * Whether a keepable render is the same whenever this commit is rendered with these
 * settings, as long as the unavailable memory holds the failures in `remembered`: nothing
 * the clone lacks, no other error that may pass (a chart unavailable for any other reason,
 * a timeout: a failed producer the render could not key), and no chart picked by a
 * version range or a moving tag, which a newer chart may satisfy tomorrow.
 */
export function keepsWhole(
  cluster: RenderedCluster,
  ctx: KeepContext,
  remembered: ReadonlyMap<string, unknown>,
): boolean {
  if (ctx.lacking.size > 0) return false;
  const producers = new Map(cluster.producers.map((p) => [producerKey(p), p]));
  for (const error of cluster.errors) {
    if (isUnavailable(error)) {
      if (error.offline === true || !remembered.has(producerKey(error.producer))) return false;
      continue;
    }
    const producer = producers.get(producerKey(error.producer));
    if (producer?.error !== undefined && producer.inputKey === undefined) return false;
  }
  return ctx.definitions.every(
    ({ ref, manifest }) => ref.kind !== 'HelmRelease' || chartPinned(manifest, ref, ctx.lookup),
  );
}

/**
 * A HelmRelease's chart is pinned when its version is exact (a full semver, an OCI tag or
 * digest), or when it comes from a folder of a source, which the commit fixes.
 */
export function chartPinned(
  manifest: Manifest,
  ref: ProducerRef,
  lookup: KeepContext['lookup'],
): boolean {
  const spec = record(manifest['spec']);
  const chartRef = record(spec['chartRef']);
  const namespaceOf = (r: Record<string, unknown>) =>
    typeof r['namespace'] === 'string' ? r['namespace'] : ref.namespace;
  if (typeof chartRef['kind'] === 'string' && typeof chartRef['name'] === 'string') {
    const source = lookup(chartRef['kind'], namespaceOf(chartRef), chartRef['name']);
    // A source the commit lacks fails the release the same way on every render of it (a
    // whole render is kept only without source mappings, which could supply one).
    if (source === undefined) {
      return chartRef['kind'] === 'OCIRepository' || chartRef['kind'] === 'HelmChart';
    }
    const sourceSpec = record(source['spec']);
    if (chartRef['kind'] === 'OCIRepository') return ociPinned(record(sourceSpec['ref']));
    if (chartRef['kind'] !== 'HelmChart') return false;
    return requestPinned(sourceSpec);
  }
  return requestPinned(record(record(spec['chart'])['spec']));
}

/** A chart request (HelmRelease spec.chart.spec, or a HelmChart's spec). */
function requestPinned(spec: Record<string, unknown>): boolean {
  const kind = record(spec['sourceRef'])['kind'];
  if (kind === 'GitRepository' || kind === 'Bucket') return true;
  const version = spec['version'];
  return typeof version === 'string' && parseStrictVersion(version) !== undefined;
}

/** An OCIRepository's ref: a digest or a tag, not a semver range (nor nothing: `latest`). */
function ociPinned(ref: Record<string, unknown>): boolean {
  if (typeof ref['digest'] === 'string') return true;
  return typeof ref['tag'] === 'string' && ref['semver'] === undefined;
}

function record(value: unknown): Record<string, unknown> {
  return isRecord(value) ? value : {};
}

/**
 * Hands a kept render's outcomes to the review's other render, counted as read from the
 * cache: each keyed producer that rendered, with its objects (and a release's chart).
 */
export function seedMemo(memo: RenderMemo, cluster: RenderedCluster): void {
  const objectsOf = new Map<string, RenderedCluster['objects']>();
  for (const object of cluster.objects) {
    const key = producerKey(object.producer);
    const list = objectsOf.get(key);
    if (list) list.push(object);
    else objectsOf.set(key, [object]);
  }
  for (const producer of cluster.producers) {
    if (producer.skipped !== undefined) continue;
    const rendered = producer.error === undefined && producer.inputKey !== undefined;
    const outcome: MemoOutcome = {
      objects: objectsOf.get(producerKey(producer)) ?? [],
      ...(producer.assumed !== undefined ? { assumed: producer.assumed } : {}),
      ...(producer.kind === 'HelmRelease' ? { chart: producer.source } : {}),
    };
    memo.note(rendered ? producer.inputKey : undefined, outcome, 'cached');
  }
}
