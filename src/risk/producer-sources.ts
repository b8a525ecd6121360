/**
 * The Flux source objects a producer reads its content from: a Kustomization's
 * `spec.sourceRef`, a HelmRelease's `spec.chartRef` or `spec.chart.spec.sourceRef`, and for
 * a HelmChart named by chartRef, that HelmChart's own source too. A PR that moves one of them
 * (an OCIRepository's tag, a HelmRepository's URL) changes what the producer renders, even
 * when the producer's own object is untouched.
 */
import {
  type Manifest,
  type ProducerRef,
  type RenderedCluster,
  asRecord,
  objectId,
  producerObjectId,
  stringOf,
} from '../model/index.js';

const SOURCE_GROUP = 'source.toolkit.fluxcd.io';

/** The ids (objectId form) of the objects `cluster` renders, by id. */
function objectsById(cluster: RenderedCluster): Map<string, Manifest> {
  return new Map(cluster.objects.map((o) => [objectId(o.manifest), o.manifest]));
}

/** `{kind, name, namespace?}` of a reference, as an object id in `namespace` by default. */
function refId(ref: unknown, namespace: string): string | undefined {
  const r = asRecord(ref);
  const kind = stringOf(r['kind']);
  const name = stringOf(r['name']);
  if (!kind || !name) return undefined;
  return `${SOURCE_GROUP}/${kind}/${stringOf(r['namespace']) ?? namespace}/${name}`;
}

function directSources(manifest: Manifest, namespace: string): string[] {
  const spec = asRecord(manifest['spec']);
  const refs = [
    spec['sourceRef'],
    spec['chartRef'],
    asRecord(asRecord(asRecord(spec['chart'])['spec']))['sourceRef'],
  ];
  return refs.map((r) => refId(r, namespace)).filter((id): id is string => id !== undefined);
}

/**
 * The source ids of each producer, read from whichever side renders its object (head
 * first); a HelmChart's source is followed one step, as helm-controller's chartRef does.
 */
export function producerSources(
  base: RenderedCluster,
  head: RenderedCluster,
): (ref: ProducerRef) => string[] {
  const sides = [objectsById(head), objectsById(base)];
  const find = (id: string) => sides.map((s) => s.get(id)).find((m) => m !== undefined);
  return (ref) => {
    const own = find(producerObjectId(ref));
    if (!own) return [];
    const ids = directSources(own, ref.namespace);
    for (const id of [...ids]) {
      const chart = id.includes('/HelmChart/') ? find(id) : undefined;
      const chartNamespace = id.split('/')[2] ?? ref.namespace;
      if (chart) ids.push(...directSources(chart, chartNamespace));
    }
    return ids;
  };
}
