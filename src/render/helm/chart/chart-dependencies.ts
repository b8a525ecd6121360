/**
 * Dependencies of a chart taken from a source folder, built as source-controller's
 * dependency manager does before it packages the chart: only dependencies missing from
 * charts/ are added (the lock file, when present, says which are needed); `file://`
 * ones are read from the same source and must stay inside it and satisfy their version
 * constraint; remote ones come from their repository URL through the chart cache (so
 * offline they come from the cache or not at all). Dependencies of dependencies are
 * not built, as source-controller does not build them either.
 */
import { readFile, readdir, realpath, stat } from 'node:fs/promises';
import { join, posix, sep } from 'node:path';
import { copyTree } from '../../workspace/index.js';
import { readChartArchive, writeChartFiles } from './chart-archive.js';
import { describeUrl } from './chart-fetch.js';
import { resolveHttpChart } from './chart-http-repository.js';
import {
  dependencyRequests,
  parseChartYaml,
  readChartMetadata,
  type ChartDependency,
} from './chart-metadata.js';
import { resolveOciChart } from './chart-oci.js';
import { UNPACKED_RATIO, type ChartSourceContext } from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { versionSatisfies } from '../semver-constraint.js';

export interface DependencyBuild {
  /** The chart's own scratch copy; dependencies are added to its charts/. */
  chartDir: string;
  /** The source folder the chart came from; `file://` dependencies must stay inside. */
  sourceRoot: string;
  /** The chart's folder relative to sourceRoot, `/`-separated. */
  chartRel: string;
  ctx: ChartSourceContext;
  scratchDir: string;
  what: string;
}

const MAX_FILES = 10_000;

export async function buildDependencies(b: DependencyBuild): Promise<void> {
  const meta = await readChartMetadata(b.chartDir, b.what);
  const requests = await dependencyRequests(b.chartDir, meta, b.what);
  if (requests.length === 0) return;
  const present = await presentCharts(join(b.chartDir, 'charts'), b);
  if (present.length === requests.length) return;
  for (const dep of requests) {
    if (present.includes(dep.alias || dep.name)) continue;
    await addDependency(dep, b);
  }
}

/** Names of the charts already in charts/, folders and archives alike. */
async function presentCharts(dir: string, b: DependencyBuild): Promise<string[]> {
  const what = b.what;
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const names: string[] = [];
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const text = await readFile(join(path, 'Chart.yaml'), 'utf8').catch(() => undefined);
      if (text !== undefined)
        names.push(parseChartYaml(text, `${what}: charts/${entry.name}`).name);
    } else if (entry.isFile() && entry.name.endsWith('.tgz')) {
      const files = await readArchive(path, b, `${what}: charts/${entry.name}`);
      const chartYaml = files.find((f) => f.path === 'Chart.yaml');
      names.push(parseChartYaml(chartYaml?.data.toString('utf8') ?? '', what).name);
    }
  }
  return names;
}

async function addDependency(dep: ChartDependency, b: DependencyBuild): Promise<void> {
  const repo = dep.repository ?? '';
  const what = `${b.what}: dependency '${dep.name}'`;
  if (repo.startsWith('file://')) return addLocalDependency(dep, repo, b, what);
  if (repo === '') {
    throw new ChartContentError(`${what} is not in charts/ and names no repository`);
  }
  const sourceId = `${describeUrl(repo)} (a dependency of ${b.what})`;
  if (/^https?:\/\//.test(repo)) {
    const request = { repoUrl: repo, chart: dep.name, version: dep.version ?? '', sourceId };
    const cached = await resolveHttpChart(request, b.ctx);
    return copyInto(cached.dir, cached.meta.name, b.chartDir);
  }
  if (repo.startsWith('oci://')) {
    const ref = `${repo.replace(/\/+$/, '')}/${dep.name}`;
    const request = { ref, version: dep.version, insecure: false, sourceId };
    const { chart } = await resolveOciChart(request, b.ctx, b.scratchDir);
    return copyInto(chart.dir, chart.meta.name, b.chartDir);
  }
  throw new ChartUnavailableError(
    `${what}: repository '${repo}' is not a URL (helm repository aliases need a local helm setup)`,
  );
}

async function addLocalDependency(
  dep: ChartDependency,
  repo: string,
  b: DependencyBuild,
  what: string,
): Promise<void> {
  const rel = posix.normalize(posix.join(b.chartRel, repo.slice('file://'.length)));
  const path = join(b.sourceRoot, ...rel.split('/'));
  const real = await realpath(path).catch(() => undefined);
  const root = await realpath(b.sourceRoot);
  if (
    rel === '..' ||
    rel.startsWith('../') ||
    (real && real !== root && !real.startsWith(root + sep))
  ) {
    throw new ChartContentError(`${what}: '${repo}' leaves the source`);
  }
  if (!real)
    throw new ChartContentError(`${what}: no chart found at '${rel}' (reference '${repo}')`);
  const isFile = (await stat(real)).isFile();
  const files = isFile ? await readArchive(real, b, what) : undefined;
  const chartYaml = files
    ? (files.find((f) => f.path === 'Chart.yaml')?.data.toString('utf8') ?? '')
    : await readFile(join(real, 'Chart.yaml'), 'utf8').catch(() => '');
  const meta = parseChartYaml(chartYaml, what);
  const fits = versionSatisfies(meta.version, dep.version ?? '');
  if (fits === 'invalid') {
    throw new ChartContentError(
      `${what}: invalid version/constraint format '${dep.version ?? ''}'`,
    );
  }
  if (!fits) {
    throw new ChartContentError(
      `${what}: can't get a valid version for constraint '${dep.version ?? ''}'`,
    );
  }
  const dest = await freeFolder(join(b.chartDir, 'charts'), meta.name);
  if (files) await writeChartFiles(files, dest);
  else
    await copyTree(real, dest, { mode: 'copy', keep: () => true, limits: { maxFiles: MAX_FILES } });
}

async function readArchive(path: string, b: DependencyBuild, what: string) {
  const bytes = await readFile(path);
  if (bytes.length > b.ctx.maxChartBytes) {
    throw new ChartUnavailableError(
      `${what}: the chart archive is larger than ${b.ctx.maxChartBytes} bytes`,
    );
  }
  return readChartArchive(bytes, { maxBytes: b.ctx.maxChartBytes * UNPACKED_RATIO }, what);
}

async function copyInto(from: string, name: string, chartDir: string): Promise<void> {
  const dest = await freeFolder(join(chartDir, 'charts'), name);
  await copyTree(from, dest, { mode: 'copy', keep: () => true, limits: { maxFiles: MAX_FILES } });
}

/** charts/NAME, or charts/NAME-2 ... when a folder of that name is already there. */
async function freeFolder(chartsDir: string, name: string): Promise<string> {
  const cleaned = name.replace(/[^A-Za-z0-9._-]/g, '_');
  const safe = /^\.*$/.test(cleaned) ? 'chart' : cleaned;
  for (let n = 1; ; n++) {
    const candidate = join(chartsDir, n === 1 ? safe : `${safe}-${n}`);
    if (!(await stat(candidate).catch(() => undefined))) return candidate;
  }
}
