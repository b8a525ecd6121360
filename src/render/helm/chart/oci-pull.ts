/**
 * `helm pull` of one OCI chart, kept away from every credential the machine holds: helm
 * gets empty config homes, and a registry config and a Docker config that list none (but
 * a reserved `.invalid` host, without which helm's credential library goes looking for a
 * desktop keychain helper on PATH), so `helm registry login`, `docker login` and keychains
 * of the user running fluxlens are never used. Every pull goes through the relay of
 * registry-proxy.ts: it adds the operator's credentials outside helm where the operator's
 * file has an entry, and holds each request to the registry to the same connect and
 * response bounds and address policy as an HTTP chart repository's (helm's own client has
 * none, so a registry that accepts and never answers would hold a render until the tool
 * timeout). The relay's first failure (a name that does not resolve, a refused
 * connection, a bound) stops helm at once and is the pull's error.
 */
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CancelledError } from '../../../errors.js';
import { ToolError } from '../../../tool-runner.js';
import type { ChartSourceContext } from './chart-source-context.js';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { isLoopbackHost, secretValues, withoutSecrets } from './registry-credentials.js';
import { startRegistryProxy, type RegistryProxy } from './registry-proxy.js';

export interface OciPullRequest {
  ref: string;
  version?: string | undefined;
  digest?: string | undefined;
  /** Plain HTTP to the registry (`spec.insecure`); loopback registries always are. */
  insecure: boolean;
}

export interface Pulled {
  archive: Buffer;
  digest: string;
  tag?: string;
}

/** An auths map that names no real host: "configured", so no helper is looked for. */
const NO_CREDENTIALS = `${JSON.stringify({ auths: { 'fluxlens.invalid': {} } })}\n`;

/**
 * The environment of a helm run that must use none of the user's helm or Docker logins:
 * every home below `dir`, and registry and Docker configs that list no real host.
 */
export async function isolatedHelmHome(dir: string): Promise<{
  HELM_CONFIG_HOME: string;
  HELM_CACHE_HOME: string;
  HELM_DATA_HOME: string;
  HELM_REGISTRY_CONFIG: string;
  DOCKER_CONFIG: string;
}> {
  const env = {
    HELM_CONFIG_HOME: join(dir, 'config'),
    HELM_CACHE_HOME: join(dir, 'cache'),
    HELM_DATA_HOME: join(dir, 'data'),
    HELM_REGISTRY_CONFIG: join(dir, 'config', 'registry', 'config.json'),
    DOCKER_CONFIG: join(dir, 'docker'),
  };
  await mkdir(join(dir, 'config', 'registry'), { recursive: true });
  await mkdir(env.DOCKER_CONFIG, { recursive: true });
  await writeFile(env.HELM_REGISTRY_CONFIG, NO_CREDENTIALS);
  await writeFile(join(env.DOCKER_CONFIG, 'config.json'), NO_CREDENTIALS);
  return env;
}

/** `registry` is the reference as `http://HOST[:PORT]/PATH` (see chart-oci.ts). */
export async function helmPull(
  req: OciPullRequest,
  registry: URL,
  ctx: ChartSourceContext,
  scratchDir: string,
  what: string,
): Promise<Pulled> {
  const plainHttp = isLoopbackHost(registry.hostname) || req.insecure;
  // Parsed again with its real scheme, so that `:443` or `:80` is the default port or not.
  const authority = /^oci:\/\/([^/]+)/.exec(req.ref)?.[1] ?? registry.host;
  const origin = new URL(`${plainHttp ? 'http' : 'https'}://${authority}`);
  const limits = {
    timeoutMs: ctx.timeoutMs,
    maxBytes: ctx.maxChartBytes,
    ...(ctx.network !== undefined ? { network: ctx.network } : {}),
  };
  const work = await mkdtemp(join(scratchDir, 'oci-pull-'));
  try {
    // The first request the relay cannot make ends the pull: helm would only try again.
    const stop = new AbortController();
    const proxy = await startRegistryProxy(origin, limits, what, () => stop.abort());
    try {
      const ref = `oci://${proxy.pullHost}${registry.pathname}`;
      return await runPull(req, { ref, proxy, signal: stop.signal }, ctx, work, what);
    } finally {
      await proxy.close();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

interface PullVia {
  ref: string;
  proxy: RegistryProxy;
  signal: AbortSignal;
}

async function runPull(
  req: OciPullRequest,
  via: PullVia,
  ctx: ChartSourceContext,
  work: string,
  what: string,
): Promise<Pulled> {
  const dest = join(work, 'out');
  await mkdir(dest);
  const env = await isolatedHelmHome(work);
  const registryConfig = env.HELM_REGISTRY_CONFIG;
  const args = ['pull', req.digest !== undefined ? `${via.ref}@${req.digest}` : via.ref];
  if (req.digest === undefined && req.version) args.push('--version', req.version);
  args.push('--destination', dest, '--registry-config', registryConfig, '--plain-http');
  let stderr: string;
  try {
    const options = { timeoutMs: ctx.timeoutMs, env, signal: via.signal };
    ({ stderr } = await ctx.runner.run('helm', args, options));
  } catch (err) {
    // A cancelled review, not the relay's own stop, is no answer about the chart.
    if (err instanceof CancelledError && !via.proxy.failure()) throw err;
    throw pullError(err, via.proxy, ctx, what);
  }
  const digest = /^Digest:\s*(sha256:[0-9a-f]{64})\s*$/m.exec(stderr)?.[1];
  if (!digest) throw new ChartUnavailableError(`${what}: helm pull did not report a digest`);
  const archive = await readPulledArchive(dest, ctx.maxChartBytes, what);
  const pulledRef = /^Pulled:\s*(\S+)\s*$/m.exec(stderr)?.[1] ?? '';
  const tag = pulledRef.includes('@') ? undefined : /:([^:/]+)$/.exec(pulledRef)?.[1];
  return tag === undefined ? { archive, digest } : { archive, digest, tag };
}

/**
 * What a failed pull says: the relay's own failure when it had one; otherwise helm's last
 * words, with the relay's address put back as the registry's and any credential value a
 * registry might have echoed removed, plus what was done with credentials. A registry
 * that refused credentials makes the chart unavailable whatever helm printed.
 */
function pullError(
  err: unknown,
  proxy: RegistryProxy,
  ctx: ChartSourceContext,
  what: string,
): Error {
  const failure = proxy.failure();
  if (failure) return failure;
  const raw = err instanceof ToolError ? err.stderrTail || err.message : String(err);
  const credentials = ctx.network?.credentials;
  const known = (credentials?.hosts ?? []).flatMap((h) => credentials?.forHost(h) ?? []);
  const secrets = [...secretValues(known), ...proxy.tokens()];
  const detail = withoutSecrets(proxy.rewrite(raw), secrets);
  const notes = proxy.notes();
  const message = `${what}: helm pull failed: ${detail}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  return missingInRegistry(err) && !proxy.refusedCredentials()
    ? new ChartContentError(message, { cause: err })
    : new ChartUnavailableError(message, { cause: err });
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
  const names = (await readdir(dir).catch(() => [])).filter((n) => n.endsWith('.tgz'));
  const name = names[0];
  if (names.length !== 1 || name === undefined) {
    throw new ChartUnavailableError(`${what}: helm pull wrote no chart archive`);
  }
  if ((await stat(join(dir, name))).size > maxBytes) {
    throw new ChartUnavailableError(`${what}: the chart archive is larger than ${maxBytes} bytes`);
  }
  return readFile(join(dir, name));
}
