/**
 * Charts from OCI registries, pulled with `helm pull` (oci-pull.ts). The manifest digest
 * helm prints is part of the cache key, the credentials that fetched it are not: the
 * cache is the operator's own, and every render on the machine may use the same
 * credentials anyway. A digest or an exact semver tag is taken as immutable, so a second
 * request for it touches no network; ranges and other tags are pulled again whenever the
 * network may be used, and offline reuse the last resolution. A pull that failed is
 * remembered for a while (unavailable-memory.ts).
 */
import { ChartCache, cacheKey, type CachedChart } from './chart-cache.js';
import { readChartArchive, writeChartFiles } from './chart-archive.js';
import { parseChartYaml } from './chart-metadata.js';
import { UNPACKED_RATIO, type ChartSourceContext } from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { helmPull } from './oci-pull.js';
import { withUnavailableMemory } from './unavailable-memory.js';
import { parseStrictVersion } from '../semver-constraint.js';

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
  const registry = registryRef(req.ref, what);
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
  const source = `${req.ref}${req.insecure ? ' (insecure)' : ''}`;
  const subject = { source, host: registry.host, chart: '', version: wanted };
  const pulled = await withUnavailableMemory(subject, ctx, () =>
    helmPull(req, registry, ctx, scratchDir, what),
  );
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

/** `http://HOST[:PORT]/PATH` of an `oci://` reference, or a ChartContentError. */
function registryRef(ref: string, what: string): URL {
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
  return url;
}
