/**
 * What a rendered cluster read of the reviewed repository (RenderedCluster.reads), so that a
 * review can account for every file it changes: the files the build of each producer that
 * rendered reads (a Kustomization's kustomize references, a chart folder in the repository
 * and its values files), and the ignore rules of the repository's artifacts. A producer that
 * failed or was skipped reads nothing here: its output is not in the diff. Also marks the
 * Kustomization the render assumed by Flux's convention (see withEntrySync).
 */
import { posix } from 'node:path';
import {
  producerKey,
  type Manifest,
  type ProducerRef,
  type RenderedCluster,
} from '../../model/index.js';
import {
  assumesBootstrap,
  FluxKustomization,
  type Discovery,
  type Sources,
} from '../flux/index.js';
import { HelmRelease } from '../helm/index.js';
import { kustomizationReads } from '../kustomize/index.js';
import { mapLimit, walkTree } from '../workspace/index.js';

/** Walks at once: each is a few small reads. */
const IN_FLIGHT = 8;

export interface ReadsContext {
  found: Discovery;
  definitions: ReadonlyArray<{ ref: ProducerRef; manifest: Manifest }>;
  sources: Sources;
}

/** Sets `cluster.reads` and marks the bootstrap Kustomization the render assumed. */
export async function accountReads(cluster: RenderedCluster, ctx: ReadsContext): Promise<void> {
  const manifests = new Map(ctx.definitions.map((d) => [producerKey(d.ref), d.manifest]));
  const rendered = cluster.producers.filter((p) => p.error === undefined && !p.skipped);
  const files = new Set<string>();
  await mapLimit(rendered, IN_FLIGHT, async (producer) => {
    const manifest = manifests.get(producerKey(producer));
    if (manifest === undefined) return;
    const read =
      producer.kind === 'Kustomization'
        ? await kustomizationFiles(ctx.sources, producer, manifest)
        : await chartFiles(ctx.sources, producer, manifest);
    read.forEach((f) => files.add(f));
  });
  cluster.reads = { files: [...files].sort(), ignore: await ctx.sources.repositoryRules() };
  if (!assumesBootstrap(ctx.found)) return;
  for (const producer of cluster.producers) {
    const { definedIn } = producer;
    if (producer.kind === 'Kustomization' && 'file' in definedIn && definedIn.file === '')
      producer.byConvention = 'flux-bootstrap';
  }
}

async function kustomizationFiles(
  sources: Sources,
  producer: ProducerRef & { path: string },
  manifest: Manifest,
): Promise<string[]> {
  const ks = FluxKustomization.safeParse(manifest).data;
  if (ks === undefined) return [];
  const ref = ks.spec.sourceRef;
  const resolved = await sources.resolve({
    kind: ref.kind,
    name: ref.name,
    namespace: ref.namespace ?? producer.namespace,
  });
  if (resolved.kind !== 'found') return [];
  if (resolved.isRepository) return kustomizationReads(resolved.root, producer.path, ks);
  // An artifact copied from the repository reads the repository files it was copied from.
  const { repositoryFiles } = resolved;
  if (repositoryFiles === undefined) return [];
  const read = await kustomizationReads(resolved.root, producer.path, ks);
  return read.flatMap(repositoryFiles);
}

/** A chart in a folder of the repository: every file of it, and its values files. */
async function chartFiles(
  sources: Sources,
  producer: ProducerRef,
  manifest: Manifest,
): Promise<string[]> {
  const spec = HelmRelease.safeParse(manifest).data?.spec.chart?.spec;
  if (spec === undefined) return [];
  const ref = spec.sourceRef;
  if (ref.kind !== 'GitRepository' && ref.kind !== 'Bucket') return [];
  const resolved = await sources.resolve({
    kind: ref.kind,
    name: ref.name,
    namespace: ref.namespace ?? producer.namespace,
  });
  if (resolved.kind !== 'found' || !resolved.isRepository) return [];
  const chart = posix.normalize(spec.chart.replace(/^\.?\/+/, '')).replace(/\/+$/, '');
  if (chart === '..' || chart.startsWith('../')) return [];
  const inChart = await walkTree(posix.join(resolved.root, chart)).catch(() => []);
  const values = [...(spec.valuesFile ? [spec.valuesFile] : []), ...(spec.valuesFiles ?? [])];
  return [
    ...inChart
      .filter((e) => e.kind === 'file')
      .map((e) => (chart === '.' ? e.path : `${chart}/${e.path}`)),
    ...values.map((f) => posix.normalize(f.replace(/^\/+/, ''))),
  ];
}
