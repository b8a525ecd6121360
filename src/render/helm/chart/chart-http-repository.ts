/**
 * Charts from HTTP(S) Helm repositories, as source-controller gets them: index.yaml at
 * the repository URL, the version chosen from it (exact match, else the highest one a
 * constraint allows), the archive at the entry's first URL (relative to the repository
 * URL), checked against the index digest when the index has one.
 *
 * Caching: an exact version is taken as immutable, so a second request for it touches
 * no network. A range or "latest" is re-resolved against a fresh index whenever the
 * network may be used (the archive itself still comes from the cache), and offline it
 * reuses the last resolution. A fetch that failed is remembered for a while
 * (unavailable-memory.ts): the cache still answers, the network is not asked again.
 */
import { createHash } from 'node:crypto';
import { parse } from 'yaml';
import { z } from 'zod';
import { ChartCache, cacheKey, type CachedChart } from './chart-cache.js';
import { readChartArchive, writeChartFiles } from './chart-archive.js';
import { describeUrl, fetchChartFile, httpUrl } from './chart-fetch.js';
import { parseChartYaml } from './chart-metadata.js';
import {
  DEFAULT_MAX_INDEX_BYTES,
  UNPACKED_RATIO,
  type ChartSourceContext,
} from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { parseStrictVersion, selectVersion } from '../semver-constraint.js';
import { withUnavailableMemory } from './unavailable-memory.js';

export interface HttpChartRequest {
  /** HelmRepository spec.url, or the repository of a chart dependency. */
  repoUrl: string;
  chart: string;
  /** Exact version or constraint; empty means the latest stable version. */
  version: string;
  /** For messages, e.g. `HelmRepository/flux-system/podinfo`. */
  sourceId: string;
}

const IndexFile = z.looseObject({
  apiVersion: z.string().min(1),
  entries: z.record(z.string(), z.array(z.unknown()).nullable()).nullable().optional(),
});

const IndexEntry = z.looseObject({
  version: z.string().min(1),
  urls: z.array(z.string()).nullable().optional(),
  digest: z.string().optional(),
  created: z.string().optional(),
});
type IndexEntry = z.infer<typeof IndexEntry>;

export async function resolveHttpChart(
  req: HttpChartRequest,
  ctx: ChartSourceContext,
): Promise<CachedChart> {
  const cache = new ChartCache(ctx.cacheDir);
  const what = `chart '${req.chart}' from ${req.sourceId}`;
  const base = repositoryBase(req.repoUrl, what);
  const specRef = cacheKey(['helm-ref', base.href, req.chart, req.version]);
  if (ctx.offline || parseStrictVersion(req.version)) {
    const hit = await cache.getRef(specRef);
    if (hit) return hit.chart;
    if (ctx.offline) {
      throw new ChartUnavailableError(
        `${what} version '${req.version || '*'}' is not in the cache (offline)`,
        { notCached: true },
      );
    }
  }
  const subject = { source: base.href, host: base.host, chart: req.chart, version: req.version };
  return withUnavailableMemory(subject, ctx, async () => {
    const entry = await pickEntry(base, req, ctx, what);
    const digest = indexDigest(entry);
    const versionRef = cacheKey(['helm-ref', base.href, req.chart, entry.version]);
    const known = digest
      ? await cache.get(cacheKey([base.href, req.chart, entry.version, digest]))
      : (await cache.getRef(versionRef))?.chart;
    const chart = known ?? (await download(base, entry, req, ctx, what));
    await cache.putRef(specRef, chart.key);
    if (versionRef !== specRef) await cache.putRef(versionRef, chart.key);
    return chart;
  });
}

/** The repository URL with one trailing slash, as source-controller normalizes it. */
function repositoryBase(repoUrl: string, what: string): URL {
  const base = httpUrl(repoUrl, what);
  base.pathname = `${base.pathname.replace(/\/+$/, '')}/`;
  base.hash = '';
  return base;
}

/** helm's ResolveReferenceURL: absolute URLs as they are, others under the repository. */
function resolveReference(base: URL, ref: string): string {
  if (/^[a-z][a-z0-9+.-]*:/i.test(ref)) return ref;
  const url = new URL(ref, base);
  url.search = base.search;
  return url.href;
}

async function pickEntry(
  base: URL,
  req: HttpChartRequest,
  ctx: ChartSourceContext,
  what: string,
): Promise<IndexEntry> {
  const indexUrl = new URL(resolveReference(base, 'index.yaml'));
  const limits = {
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxIndexBytes ?? DEFAULT_MAX_INDEX_BYTES,
    ...(ctx.network !== undefined ? { network: ctx.network } : {}),
  };
  const body = await fetchChartFile(indexUrl, limits, what);
  const entries = parseIndex(body.toString('utf8'), req.chart, `${what}: ${describeUrl(indexUrl)}`);
  if (entries.length === 0) {
    throw new ChartContentError(`${what}: the repository index has no chart '${req.chart}'`);
  }
  const selection = selectVersion(entries, req.version);
  if (selection.kind === 'none') {
    throw new ChartContentError(`${what}: ${selection.reason} in the repository index`);
  }
  return selection.pick;
}

/** The valid entries for `chart`; entries that do not parse are skipped, as helm does. */
function parseIndex(text: string, chart: string, where: string): IndexEntry[] {
  let raw: unknown;
  try {
    raw = text.trimStart().startsWith('{') ? JSON.parse(text) : parse(text, { maxAliasCount: 100 });
  } catch (err) {
    throw new ChartContentError(`${where} is not a valid repository index`, { cause: err });
  }
  const index = IndexFile.safeParse(raw);
  if (!index.success) throw new ChartContentError(`${where} is not a valid repository index`);
  const found = index.data.entries?.[chart] ?? [];
  return found.flatMap((e) => {
    const entry = IndexEntry.safeParse(e);
    return entry.success ? [entry.data] : [];
  });
}

/** The index's sha256 of the archive as `sha256:HEX`, when it has a usable one. */
function indexDigest(entry: IndexEntry): string | undefined {
  const hex = entry.digest?.toLowerCase().replace(/^sha256:/, '');
  return hex && /^[0-9a-f]{64}$/.test(hex) ? `sha256:${hex}` : undefined;
}

async function download(
  base: URL,
  entry: IndexEntry,
  req: HttpChartRequest,
  ctx: ChartSourceContext,
  what: string,
): Promise<CachedChart> {
  const ref = entry.urls?.[0];
  if (!ref) throw new ChartContentError(`${what}: version ${entry.version} has no download URL`);
  const url = httpUrl(resolveReference(base, ref), what);
  const bytes = await fetchChartFile(
    url,
    {
      timeoutMs: ctx.timeoutMs,
      maxBytes: ctx.maxChartBytes,
      ...(ctx.network !== undefined ? { network: ctx.network } : {}),
    },
    what,
  );
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  const expected = indexDigest(entry);
  if (expected && expected !== digest) {
    throw new ChartContentError(
      `${what}: ${describeUrl(url)} has digest ${digest}, the index says ${expected}`,
    );
  }
  const files = await readChartArchive(
    bytes,
    { maxBytes: ctx.maxChartBytes * UNPACKED_RATIO },
    what,
  );
  const chartYaml = files.find((f) => f.path === 'Chart.yaml');
  const meta = parseChartYaml(chartYaml?.data.toString('utf8') ?? '', what);
  const key = cacheKey([base.href, req.chart, entry.version, digest]);
  return new ChartCache(ctx.cacheDir).put(
    key,
    { name: meta.name, version: meta.version, digest, url: base.href },
    (dir) => writeChartFiles(files, dir),
  );
}
