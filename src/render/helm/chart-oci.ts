/**
 * Charts from OCI registries, pulled with `helm pull` (which speaks the registry
 * protocol, token auth and helm's registry config). The manifest digest helm prints is
 * part of the cache key. A digest or an exact semver tag is taken as immutable, so a
 * second request for it touches no network; ranges and other tags are pulled again
 * whenever the network may be used, and offline reuse the last resolution.
 */
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolError } from '../../tool-runner.js';
import { ChartCache, cacheKey, type CachedChart } from './chart-cache.js';
import { readChartArchive, writeChartFiles } from './chart-archive.js';
import { parseChartYaml } from './chart-metadata.js';
import { UNPACKED_RATIO, type ChartSourceContext } from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { checkHostResolves } from './chart-network.js';
import { parseStrictVersion } from './semver-constraint.js';

export interface OciChartRequest {
  /** `oci://HOST/PATH/CHART`. */
  ref: string;
  /** A tag, exact version or constraint; absent lets helm pick the latest stable tag. */
  version?: string | undefined;
  /** `sha256:...`; wins over `version`. */
  digest?: string | undefined;
  /** Plain HTTP to the registry (HelmRepository/OCIRepository `spec.insecure`). */
  insecure: boolean;
  /** For messages, e.g. `OCIRepository/default/podinfo`. */
  sourceId: string;
}

export interface OciChart {
  chart: CachedChart;
  /** The tag the request resolved to; absent when pulled by digest. */
  tag?: string;
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export async function resolveOciChart(
  req: OciChartRequest,
  ctx: ChartSourceContext,
  scratchDir: string,
): Promise<OciChart> {
  const what = `chart ${req.ref} from ${req.sourceId}`;
  const host = registryHost(req.ref, what);
  if (req.digest !== undefined && !DIGEST.test(req.digest)) {
    throw new ChartContentError(`${what}: '${req.digest}' is not a sha256 digest`);
  }
  const cache = new ChartCache(ctx.cacheDir);
  const wanted = req.digest !== undefined ? `@${req.digest}` : (req.version ?? '');
  const specRef = cacheKey(['oci-ref', req.ref, wanted]);
  const immutable = req.digest !== undefined || parseStrictVersion(req.version ?? '') !== undefined;
  if (ctx.offline || immutable) {
    const hit = await cache.getRef(specRef);
    if (hit) return hit;
    if (ctx.offline) {
      throw new ChartUnavailableError(
        `${what} '${wanted || 'latest'}' is not in the cache (offline)`,
        { notCached: true },
      );
    }
  }
  // helm connects by itself: the address policy is checked on the name beforehand.
  if (ctx.network) await checkHostResolves(host, ctx.network, what);
  const pulled = await helmPull(req, isLoopback(host) || req.insecure, ctx, scratchDir, what);
  const files = await readChartArchive(
    pulled.archive,
    { maxBytes: ctx.maxChartBytes * UNPACKED_RATIO },
    what,
  );
  const chartYaml = files.find((f) => f.path === 'Chart.yaml');
  const meta = parseChartYaml(chartYaml?.data.toString('utf8') ?? '', what);
  const key = cacheKey([req.ref, meta.name, meta.version, pulled.digest]);
  const chart = await cache.put(
    key,
    { name: meta.name, version: meta.version, digest: pulled.digest, url: req.ref },
    (dir) => writeChartFiles(files, dir),
  );
  await cache.putRef(specRef, key, pulled.tag);
  return pulled.tag === undefined ? { chart } : { chart, tag: pulled.tag };
}

/** The registry host of an `oci://` reference, or a ChartUnavailableError. */
function registryHost(ref: string, what: string): string {
  const rest = ref.startsWith('oci://') ? ref.slice('oci://'.length) : undefined;
  let url: URL | undefined;
  try {
    url = rest ? new URL(`http://${rest}`) : undefined;
  } catch {
    url = undefined;
  }
  if (!url || url.pathname.length <= 1 || url.search || url.hash) {
    throw new ChartContentError(`${what}: not an oci://HOST/PATH reference`);
  }
  if (url.username || url.password) {
    throw new ChartUnavailableError(`${what}: credentials in the URL are not used`);
  }
  return url.hostname;
}

/** Registries on the loopback interface speak plain HTTP, as the Flux OCI clients assume. */
function isLoopback(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
    hostname === '[::1]'
  );
}

interface Pulled {
  archive: Buffer;
  digest: string;
  tag?: string;
}

async function helmPull(
  req: OciChartRequest,
  plainHttp: boolean,
  ctx: ChartSourceContext,
  scratchDir: string,
  what: string,
): Promise<Pulled> {
  const dest = await mkdtemp(join(scratchDir, 'oci-pull-'));
  const args = ['pull', req.digest !== undefined ? `${req.ref}@${req.digest}` : req.ref];
  if (req.digest === undefined && req.version) args.push('--version', req.version);
  args.push('--destination', dest);
  if (plainHttp) args.push('--plain-http');
  if (ctx.registryConfig !== undefined) args.push('--registry-config', ctx.registryConfig);
  let stderr: string;
  try {
    ({ stderr } = await ctx.runner.run('helm', args, { timeoutMs: ctx.timeoutMs }));
  } catch (err) {
    const detail = err instanceof ToolError ? err.stderrTail || err.message : String(err);
    const message = `${what}: helm pull failed: ${detail}`;
    throw missingInRegistry(err)
      ? new ChartContentError(message, { cause: err })
      : new ChartUnavailableError(message, { cause: err });
  }
  const digest = /^Digest:\s*(sha256:[0-9a-f]{64})\s*$/m.exec(stderr)?.[1];
  if (!digest) throw new ChartUnavailableError(`${what}: helm pull did not report a digest`);
  const archive = await readPulledArchive(dest, ctx.maxChartBytes, what);
  const pulledRef = /^Pulled:\s*(\S+)\s*$/m.exec(stderr)?.[1] ?? '';
  const tag = pulledRef.includes('@') ? undefined : /:([^:/]+)$/.exec(pulledRef)?.[1];
  return tag === undefined ? { archive, digest } : { archive, digest, tag };
}

/**
 * helm pull exits 1 for every failure, so its last words are the only way to tell a
 * registry that answered "no such tag or version" (a defect Flux would fail on too) from
 * one that could not be reached or refused us. Anything unrecognised counts as unreachable.
 */
const MISSING_IN_REGISTRY =
  /(?::\s*not found\s*$|manifest unknown|could not locate a version matching|unable to locate any tags)/im;

function missingInRegistry(err: unknown): boolean {
  return (
    err instanceof ToolError &&
    err.code !== 'tool-timeout' &&
    MISSING_IN_REGISTRY.test(err.stderrTail)
  );
}

async function readPulledArchive(dir: string, maxBytes: number, what: string): Promise<Buffer> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.tgz'));
  const name = names[0];
  if (names.length !== 1 || name === undefined) {
    throw new ChartUnavailableError(`${what}: helm pull wrote no chart archive`);
  }
  if ((await stat(join(dir, name))).size > maxBytes) {
    throw new ChartUnavailableError(`${what}: the chart archive is larger than ${maxBytes} bytes`);
  }
  return readFile(join(dir, name));
}
