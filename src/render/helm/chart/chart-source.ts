/**
 * Resolves the chart of a HelmRelease to an unpacked chart folder, as helm-controller
 * and source-controller would get it: from a GitRepository or Bucket folder, an HTTP(S)
 * or OCI HelmRepository, an OCIRepository, or a HelmChart naming one of those. Remote
 * charts go through the shared content-addressed cache (chart-cache.ts). It never reads
 * Secrets and never renders. A failure is a ChartContentError when Flux would fail the
 * same way, and a ChartUnavailableError when fluxlens could not have what Flux may get.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage } from '../../../errors.js';
import type { HelmRelease } from '../helm-release.js';
import type { CachedChart, CachedChartMeta } from './chart-cache.js';
import { resolveHttpChart } from './chart-http-repository.js';
import { resolveLocalChart } from './chart-local.js';
import { resolveOciChart } from './chart-oci.js';
import type { ChartSourceContext, ResolvedChart } from './chart-source-context.js';
import {
  HelmChartObject,
  HelmRepositoryObject,
  OCIRepositoryObject,
  parseSourceObject,
} from './chart-source-objects.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { copyTree } from '../../workspace/index.js';
import { parseVersion, sameVersion, withBuildMetadata } from '../semver-constraint.js';

export { ChartUnavailableError } from './chart-unavailable-error.js';
export type { ChartSourceContext, ResolvedChart } from './chart-source-context.js';

/** A chart request after defaults: HelmChart spec.chart/version and its source. */
interface ChartRequest {
  chart: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
}

export async function resolveChart(
  hr: HelmRelease,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const id = `HelmRelease ${hr.metadata.namespace ?? 'default'}/${hr.metadata.name}`;
  try {
    return await resolveRelease(hr, id, ctx, scratchDir);
  } catch (err) {
    // File system and tool failures (a full disk, a tree over its limits) are this
    // HelmRelease's failure too, and say nothing about the repository.
    if (err instanceof ChartUnavailableError || err instanceof ChartContentError) throw err;
    throw new ChartUnavailableError(`${id}: ${errorMessage(err)}`, { cause: err });
  }
}

async function resolveRelease(
  hr: HelmRelease,
  id: string,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const namespace = hr.metadata.namespace ?? 'default';
  const { chart, chartRef } = hr.spec;
  if (chart && chartRef) {
    throw new ChartContentError(`${id} sets both spec.chart and spec.chartRef`);
  }
  await mkdir(scratchDir, { recursive: true });
  if (chartRef) {
    const ns = chartRef.namespace ?? namespace;
    return resolveChartRef(chartRef.kind, ns, chartRef.name, ctx, scratchDir);
  }
  if (!chart) throw new ChartContentError(`${id} has neither spec.chart nor spec.chartRef`);
  const { sourceRef } = chart.spec;
  const request: ChartRequest = {
    chart: chart.spec.chart,
    version: chart.spec.version ?? '',
    kind: sourceRef.kind,
    namespace: sourceRef.namespace ?? namespace,
    name: sourceRef.name,
  };
  return resolveRequest(request, ctx, scratchDir);
}

async function resolveRequest(
  req: ChartRequest,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  switch (req.kind) {
    case 'HelmRepository':
      return resolveFromHelmRepository(req, ctx, scratchDir);
    case 'GitRepository':
    case 'Bucket':
      return resolveLocalChart({ ...req, chartPath: req.chart }, ctx, scratchDir);
    default:
      throw new ChartContentError(
        `chart '${req.chart}': sourceRef kind '${req.kind}' is not HelmRepository, GitRepository or Bucket`,
      );
  }
}

async function resolveFromHelmRepository(
  req: ChartRequest,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const sourceId = `HelmRepository/${req.namespace}/${req.name}`;
  const object = ctx.lookup('HelmRepository', req.namespace, req.name);
  if (!object) throw new ChartContentError(`chart '${req.chart}': ${sourceId} was not found`);
  const repo = parseSourceObject(HelmRepositoryObject, object, sourceId);
  if (repo.spec.type === 'oci') {
    const request = {
      ref: `${repo.spec.url.replace(/\/+$/, '')}/${req.chart}`,
      version: req.version || undefined,
      insecure: repo.spec.insecure ?? false,
      sourceId,
    };
    const { chart } = await resolveOciChart(request, ctx, scratchDir);
    return copyResolved(chart, chart.meta.version, sourceId, scratchDir);
  }
  const request = { repoUrl: repo.spec.url, chart: req.chart, version: req.version, sourceId };
  const chart = await resolveHttpChart(request, ctx);
  return copyResolved(chart, chart.meta.version, sourceId, scratchDir);
}

async function resolveChartRef(
  kind: string,
  namespace: string,
  name: string,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const id = `${kind}/${namespace}/${name}`;
  if (kind === 'OCIRepository' || kind === 'ExternalArtifact') {
    // A mapped artifact folder is the chart itself (offline, no digest to record).
    if (kind === 'ExternalArtifact' || (await ctx.sourceDir(kind, namespace, name))) {
      return resolveLocalChart({ kind, namespace, name, chartPath: '.' }, ctx, scratchDir);
    }
    return resolveOciRepository(namespace, name, ctx, scratchDir);
  }
  if (kind !== 'HelmChart') {
    throw new ChartContentError(`chartRef kind '${kind}' is not OCIRepository or HelmChart`);
  }
  const object = ctx.lookup('HelmChart', namespace, name);
  if (!object) throw new ChartContentError(`chartRef ${id} was not found`);
  const { spec } = parseSourceObject(HelmChartObject, object, id);
  const request: ChartRequest = {
    chart: spec.chart,
    version: spec.version ?? '',
    kind: spec.sourceRef.kind,
    namespace,
    name: spec.sourceRef.name,
  };
  return resolveRequest(request, ctx, scratchDir);
}

async function resolveOciRepository(
  namespace: string,
  name: string,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const id = `OCIRepository/${namespace}/${name}`;
  const object = ctx.lookup('OCIRepository', namespace, name);
  if (!object) throw new ChartContentError(`chartRef ${id} was not found`);
  const { spec } = parseSourceObject(OCIRepositoryObject, object, id);
  const ref = spec.ref ?? {};
  if (ref.semverFilter !== undefined) {
    throw new ChartUnavailableError(`${id}: spec.ref.semverFilter is not supported`);
  }
  // source-controller's precedence: digest, then semver, then tag, then `latest`.
  const request = {
    ref: spec.url,
    digest: ref.digest,
    version: ref.digest !== undefined ? undefined : (ref.semver ?? ref.tag ?? 'latest'),
    insecure: spec.insecure ?? false,
    sourceId: id,
  };
  const { chart, tag } = await resolveOciChart(request, ctx, scratchDir);
  return copyResolved(chart, recordedOciVersion(chart.meta, tag, id), id, scratchDir);
}

/**
 * helm-controller's `mutateChartWithSourceRevision`: a chart from an OCIRepository gets
 * the first 12 hex digits of the artifact digest as build metadata, so a moved tag
 * shows as a new version; when the revision carries a tag, the tag must be the chart
 * version.
 */
export function recordedOciVersion(
  meta: CachedChartMeta,
  tag: string | undefined,
  id: string,
): string {
  if (tag !== undefined) {
    if (!parseVersion(tag)) {
      throw new ChartContentError(`${id}: failed parsing artifact revision ${tag}`);
    }
    if (!sameVersion(tag, meta.version)) {
      throw new ChartContentError(
        `${id}: artifact revision ${tag} does not match chart version ${meta.version}`,
      );
    }
  }
  const hex = meta.digest.split(':')[1] ?? '';
  const version = hex.length >= 12 ? withBuildMetadata(meta.version, hex.slice(0, 12)) : undefined;
  if (!version) {
    throw new ChartContentError(
      `${id}: cannot add digest ${meta.digest} to chart version ${meta.version}`,
    );
  }
  return version;
}

async function copyResolved(
  chart: CachedChart,
  version: string,
  source: string,
  scratchDir: string,
): Promise<ResolvedChart> {
  const dir = await mkdtemp(join(scratchDir, 'chart-'));
  await copyTree(chart.dir, dir, { mode: 'copy' });
  return { dir, name: chart.meta.name, version, digest: chart.meta.digest, source };
}
