/**
 * Which Helm charts a PR moves from one version or source to another. Read from the raw
 * Flux objects of both sides (redacted first), never from the rendered chart output: a
 * bump of an OCIRepository's tag changes nothing but labels in what the chart renders,
 * and normalisation strips those.
 */
import {
  type ChartChange,
  type Manifest,
  type RenderedCluster,
  type RenderedObject,
  apiGroup,
  asRecord,
  compareStrings,
  objectMeta,
  stringOf,
} from '../model/index.js';
import { NO_SECRET_VALUES, type SecretValueIndex, redactManifest } from '../redact/index.js';

const SOURCE_GROUP = 'source.toolkit.fluxcd.io';
const HELM_GROUP = 'helm.toolkit.fluxcd.io';
const SOURCE_KINDS = new Set(['OCIRepository', 'HelmRepository', 'HelmChart']);

/**
 * One place a chart version is picked: an OCIRepository or HelmChart that a HelmRelease's
 * chartRef names, or a HelmRelease's own spec.chart from a HelmRepository (a chart from a
 * GitRepository or Bucket has its version in the repository, not here).
 */
export interface ChartSlot {
  /** `OCIRepository/namespace/name`, `HelmChart/namespace/name` or `HelmRelease/namespace/name`. */
  id: string;
  chart: string;
  source: string;
  /** As ChartChange spells it: `4.1.0`, `4.1.0@sha256:…`, `>=4.0.0`, `latest`, `*`. */
  version: string;
  /** `HelmRelease/namespace/name` of every release that installs it, sorted. */
  producers: string[];
}

/** Flux's default for an object without a namespace, on both ends of a reference. */
function namespaceOf(manifest: Manifest): string {
  return objectMeta(manifest).namespace ?? 'default';
}

function keyOf(kind: string, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

/**
 * Redacted manifests by the object they were redacted from, shared by the two sides of one
 * comparison with one SecretValueIndex: a producer the PR leaves alone carries its base
 * objects to the head (the RenderMemo's unchanged producers), which are then redacted once.
 */
export type RedactedObjects = Map<RenderedObject, Manifest>;

/** The Flux source objects and HelmReleases of one side, redacted, by `Kind/namespace/name`. */
function fluxObjects(
  objects: readonly RenderedObject[],
  secrets: SecretValueIndex,
  redacted: RedactedObjects,
): { sources: Map<string, Manifest>; releases: Map<string, Manifest> } {
  const sources = new Map<string, Manifest>();
  const releases = new Map<string, Manifest>();
  for (const object of objects) {
    const meta = objectMeta(object.manifest);
    const group = apiGroup(meta.apiVersion);
    const isSource = group === SOURCE_GROUP && SOURCE_KINDS.has(meta.kind);
    const isRelease = group === HELM_GROUP && meta.kind === 'HelmRelease';
    if (!isSource && !isRelease) continue;
    let manifest = redacted.get(object);
    if (manifest === undefined) {
      manifest = redactManifest(object.manifest, secrets, object.secret);
      redacted.set(object, manifest);
    }
    const key = keyOf(meta.kind, namespaceOf(manifest), objectMeta(manifest).name);
    (isSource ? sources : releases).set(key, manifest);
  }
  return { sources, releases };
}

function specOf(manifest: Manifest | undefined): Record<string, unknown> {
  return asRecord(manifest?.['spec']);
}

/** `app-template` from `oci://ghcr.io/bjw-s-labs/helm/app-template`. */
function lastSegment(text: string): string {
  return text.replace(/\/+$/, '').split('/').pop() || text;
}

/** What an OCIRepository's spec.ref picks, in source-controller's precedence. */
function ociVersion(ref: Record<string, unknown>): string {
  const digest = stringOf(ref['digest']);
  const named = stringOf(ref['semver']) ?? stringOf(ref['tag']);
  if (digest !== undefined) return named === undefined ? digest : `${named}@${digest}`;
  return named ?? 'latest';
}

/** A HelmRepository's url, or its identity when the cluster does not hold it. */
function repositorySource(
  sources: Map<string, Manifest>,
  sourceRef: Record<string, unknown>,
  namespace: string,
): string | undefined {
  const name = stringOf(sourceRef['name']);
  if (sourceRef['kind'] !== 'HelmRepository' || name === undefined) return undefined;
  const key = keyOf('HelmRepository', stringOf(sourceRef['namespace']) ?? namespace, name);
  return stringOf(specOf(sources.get(key))['url']) ?? key;
}

/** A chart from a HelmRepository (a HelmRelease's spec.chart.spec, a HelmChart's spec). */
function repositoryChart(
  sources: Map<string, Manifest>,
  spec: Record<string, unknown>,
  namespace: string,
): Omit<ChartSlot, 'id' | 'producers'> | undefined {
  const chart = stringOf(spec['chart']);
  const source = repositorySource(sources, asRecord(spec['sourceRef']), namespace);
  if (chart === undefined || source === undefined) return undefined;
  return { chart: lastSegment(chart), source, version: stringOf(spec['version']) ?? '*' };
}

function sourceChart(
  sources: Map<string, Manifest>,
  id: string,
): Omit<ChartSlot, 'id' | 'producers'> | undefined {
  const manifest = sources.get(id);
  if (manifest === undefined) return undefined;
  const spec = specOf(manifest);
  if (id.startsWith('HelmChart/')) return repositoryChart(sources, spec, namespaceOf(manifest));
  const url = stringOf(spec['url']);
  if (url === undefined) return undefined;
  return { chart: lastSegment(url), source: url, version: ociVersion(asRecord(spec['ref'])) };
}

/**
 * Every place one side picks a chart version, by ChartSlot.id. `redacted` is shared with
 * the other side's call, with the same `secrets` (see RedactedObjects).
 */
export function chartSlots(
  objects: readonly RenderedObject[],
  secrets: SecretValueIndex = NO_SECRET_VALUES,
  redacted: RedactedObjects = new Map(),
): Map<string, ChartSlot> {
  const { sources, releases } = fluxObjects(objects, secrets, redacted);
  const slots = new Map<string, ChartSlot>();
  const users = new Map<string, string[]>();
  for (const [release, manifest] of releases) {
    const spec = specOf(manifest);
    const namespace = namespaceOf(manifest);
    const ref = asRecord(spec['chartRef']);
    const kind = stringOf(ref['kind']);
    const name = stringOf(ref['name']);
    if (kind === 'OCIRepository' || kind === 'HelmChart') {
      if (name === undefined) continue;
      const id = keyOf(kind, stringOf(ref['namespace']) ?? namespace, name);
      users.set(id, [...(users.get(id) ?? []), release]);
      continue;
    }
    const own = repositoryChart(sources, asRecord(asRecord(spec['chart'])['spec']), namespace);
    if (own) slots.set(release, { id: release, ...own, producers: [release] });
  }
  for (const [id, producers] of users) {
    const chart = sourceChart(sources, id);
    if (chart) slots.set(id, { id, ...chart, producers: [...producers].sort(compareStrings) });
  }
  return slots;
}

/** What one side picks for a slot that did not simply stay. */
type Side = Pick<ChartSlot, 'source' | 'version' | 'producers'>;

interface Move {
  chart: string;
  /** Head's source, or base's for a chart that is gone. */
  source: string;
  from?: Side;
  to?: Side;
}

function bySide(a: Side, b: Side): number {
  return (
    compareStrings(a.source, b.source) ||
    compareStrings(a.version, b.version) ||
    compareStrings(a.producers.join('\n'), b.producers.join('\n'))
  );
}

/**
 * Pairs each side that left, in order, with the side that came scoring highest for it
 * (the first on a tie); a score of 0 never pairs. Paired sides leave both lists.
 */
function pairOff(
  gone: Side[],
  came: Side[],
  score: (from: Side, to: Side) => number,
): Array<[Side, Side]> {
  const pairs: Array<[Side, Side]> = [];
  for (const from of [...gone]) {
    let best: Side | undefined;
    let bestScore = 0;
    for (const to of came) {
      const s = score(from, to);
      if (s > bestScore) [best, bestScore] = [to, s];
    }
    if (best === undefined) continue;
    came.splice(came.indexOf(best), 1);
    gone.splice(gone.indexOf(from), 1);
    pairs.push([from, best]);
  }
  return pairs;
}

/** Releases both sides install, counted double, and one more for staying at one source. */
function kinship(from: Side, to: Side): number {
  const shared = from.producers.filter((p) => to.producers.includes(p)).length;
  return shared === 0 ? 0 : 2 * shared + (from.source === to.source ? 1 : 0);
}

/** Versions that left and came per chart, for slots that did not simply move. */
class Moves {
  private readonly byChart = new Map<string, { gone: Side[]; came: Side[] }>();

  add(which: 'gone' | 'came', slot: ChartSlot): void {
    const sides = this.byChart.get(slot.chart) ?? { gone: [], came: [] };
    this.byChart.set(slot.chart, sides);
    sides[which].push({ source: slot.source, version: slot.version, producers: slot.producers });
  }

  /**
   * A release that swaps one OCIRepository for another of the same chart moves the chart
   * only if the source or the version differs: the same source and version cancel. The
   * rest pair up per chart: first with the side that shares most releases (a chart that
   * moves to another registry or repository, at its version or another), then per
   * source in version order; what is left is a chart that is new or gone.
   */
  *pairs(): Generator<Move> {
    for (const [chart, { gone, came }] of this.byChart) {
      gone.sort(bySide);
      came.sort(bySide);
      pairOff(gone, came, (a, b) => (a.source === b.source && a.version === b.version ? 1 : 0));
      const paired = [
        ...pairOff(gone, came, kinship),
        ...pairOff(gone, came, (a, b) => (a.source === b.source ? 1 : 0)),
      ];
      for (const [from, to] of paired) yield { chart, source: to.source, from, to };
      for (const from of gone) yield { chart, source: from.source, from };
      for (const to of came) yield { chart, source: to.source, to };
    }
  }
}

function compareCharts(a: ChartChange, b: ChartChange): number {
  return (
    compareStrings(a.chart, b.chart) ||
    compareStrings(a.source, b.source) ||
    compareStrings(a.fromSource ?? '', b.fromSource ?? '') ||
    compareStrings(a.from ?? '', b.from ?? '') ||
    compareStrings(a.to ?? '', b.to ?? '')
  );
}

/**
 * Distinct chart moves between two sides, merged per chart, source, fromSource, from and
 * to with every release that installs the chart, sorted by those.
 */
export function chartChanges(
  base: RenderedCluster,
  head: RenderedCluster,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): ChartChange[] {
  const redacted: RedactedObjects = new Map();
  const before = chartSlots(base.objects, secrets, redacted);
  const after = chartSlots(head.objects, secrets, redacted);
  const merged = new Map<string, ChartChange>();
  const add = ({ chart, source, from, to }: Move) => {
    const change: ChartChange = { chart, source, producers: [] };
    if (from && from.source !== source) change.fromSource = from.source;
    if (from) change.from = from.version;
    if (to) change.to = to.version;
    const key = JSON.stringify([
      chart,
      source,
      change.fromSource ?? '',
      change.from ?? '',
      change.to ?? '',
    ]);
    const producers = [...(merged.get(key)?.producers ?? []), ...(from?.producers ?? [])];
    producers.push(...(to?.producers ?? []));
    change.producers = [...new Set(producers)].sort(compareStrings);
    merged.set(key, change);
  };
  const moves = new Moves();
  for (const id of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(id);
    const is = after.get(id);
    if (was && is && was.chart === is.chart && was.source === is.source) {
      if (was.version !== is.version)
        add({ chart: is.chart, source: is.source, from: was, to: is });
      continue;
    }
    if (was) moves.add('gone', was);
    if (is) moves.add('came', is);
  }
  for (const move of moves.pairs()) add(move);
  return [...merged.values()].sort(compareCharts);
}
