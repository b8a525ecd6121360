/**
 * Charts inside a GitRepository or Bucket source: a folder (or a packaged .tgz) at a
 * path in the source folder. The path may not leave the source, not even through a
 * symlink. The chart is copied to scratch, without symlinks as source-controller's
 * artifact has none, and its missing dependencies are built there.
 */
import { mkdtemp, readFile, realpath, stat } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { copyTree } from '../../workspace/index.js';
import { readChartArchive, writeChartFiles } from './chart-archive.js';
import { buildDependencies } from './chart-dependencies.js';
import { readChartMetadata } from './chart-metadata.js';
import {
  UNPACKED_RATIO,
  type ChartSourceContext,
  type ResolvedChart,
} from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';

export interface LocalChartRequest {
  kind: string;
  namespace: string;
  name: string;
  /** HelmChart spec.chart: the chart's path inside the source. */
  chartPath: string;
}

const MAX_FILES = 10_000;

export async function resolveLocalChart(
  req: LocalChartRequest,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<ResolvedChart> {
  const sourceId = `${req.kind}/${req.namespace}/${req.name}`;
  const what = `chart '${req.chartPath}' from ${sourceId}`;
  const root = await ctx.sourceDir(req.kind, req.namespace, req.name);
  if (root === undefined) {
    // A source Flux has but fluxlens was not given cannot be judged; one that is not
    // defined at all is a defect Flux fails on too.
    if (ctx.lookup(req.kind, req.namespace, req.name) === undefined) {
      throw new ChartContentError(`${what}: source ${sourceId} was not found`);
    }
    throw new ChartUnavailableError(
      `${what}: ${sourceId} is not this repository and is not mapped (map it with --source ${req.name}=DIR)`,
    );
  }
  const { path, rel } = await insideSource(root, req.chartPath, what);
  const dest = await mkdtemp(join(scratchDir, 'chart-'));
  // A packaged chart's file:// dependencies resolve against its path as if it were a
  // folder, as source-controller joins them.
  if ((await stat(path)).isFile()) {
    const bytes = await readFile(path);
    if (bytes.length > ctx.maxChartBytes) {
      throw new ChartUnavailableError(
        `${what}: the chart archive is larger than ${ctx.maxChartBytes} bytes`,
      );
    }
    const files = await readChartArchive(
      bytes,
      { maxBytes: ctx.maxChartBytes * UNPACKED_RATIO },
      what,
    );
    await writeChartFiles(files, dest);
  } else {
    await copyTree(path, dest, { mode: 'copy', keep: () => true, limits: { maxFiles: MAX_FILES } });
  }
  await buildDependencies({
    chartDir: dest,
    sourceRoot: root,
    chartRel: rel,
    ctx,
    scratchDir,
    what,
  });
  const meta = await readChartMetadata(dest, what);
  return { dir: dest, name: meta.name, version: meta.version, source: sourceId, sourceRoot: root };
}

/** The chart's real path and its `/`-separated path in the source, refusing escapes. */
async function insideSource(
  root: string,
  chartPath: string,
  what: string,
): Promise<{ path: string; rel: string }> {
  const parts = chartPath.split('/').filter((p) => p !== '' && p !== '.');
  const rel = parts.length === 0 ? '.' : posix.normalize(parts.join('/'));
  if (rel === '..' || rel.startsWith('../')) {
    throw new ChartContentError(`${what}: the path leaves the source`);
  }
  const realRoot = await realpath(root);
  const real = await realpath(join(root, ...rel.split('/'))).catch(() => undefined);
  if (real === undefined) throw new ChartContentError(`${what}: no such path in the source`);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    throw new ChartContentError(`${what}: the path leaves the source`);
  }
  return { path: real, rel };
}
