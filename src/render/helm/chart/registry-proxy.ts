/**
 * A loopback relay between `helm pull` and an OCI registry. helm keeps doing what it does
 * well (tags, versions, manifests, layers), but never holds a credential nor opens a
 * connection to the world: it pulls anonymously from 127.0.0.1 and every request to the
 * registry is made here, through chart-fetch.ts, so the network bounds and address policy
 * of chart downloads and the rules of registry-credentials.ts hold for each one (Go's HTTP
 * client, which helm uses, has no response bound, and would keep a registry's
 * Authorization header on a redirect to the same host name on another port). The token
 * dance is done here too (registry-token.ts), anonymous or not. The relay answers only
 * under a random path prefix, so another local process cannot borrow the credentials
 * while a pull runs.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import {
  describeUrl,
  fetchChartResponse,
  type ChartResponse,
  type FetchLimits,
} from './chart-fetch.js';
import { basicAuthorization, credentialFor, ownAuthorization } from './registry-credentials.js';
import { fetchRegistryToken, parseChallenge, type Token } from './registry-token.js';

export interface RegistryProxy {
  /** `127.0.0.1:PORT/PREFIX`: what helm pulls from instead of the registry's host. */
  readonly pullHost: string;
  /** helm's words with the relay's address put back as the registry's. */
  rewrite(text: string): string;
  /** The first failure to reach the registry or its token service, if any. */
  failure(): ChartUnavailableError | undefined;
  /** Whether the registry refused (401, 403) a request that carried credentials. */
  refusedCredentials(): boolean;
  /** What a failed pull's message adds about credentials (hosts only). */
  notes(): string[];
  /** Tokens obtained, to keep out of messages. */
  tokens(): string[];
  close(): Promise<void>;
}

const ERROR_BODY_BYTES = 64 * 1024;
const PASSED_HEADERS = ['content-type', 'docker-content-digest', 'oci-subject'];

/**
 * `registry` is the registry's origin (`https://HOST[:PORT]`); `onFailure` is called once,
 * on the first request the relay could not make, after which every request fails at once.
 */
export async function startRegistryProxy(
  registry: URL,
  limits: FetchLimits,
  what: string,
  onFailure: () => void = () => undefined,
): Promise<RegistryProxy> {
  const prefix = randomBytes(16).toString('hex');
  const session = new RegistrySession(registry, limits, what);
  const server = createServer((req, res) => {
    if (session.failure) return void res.writeHead(502).end();
    relay(req, res, prefix, session).catch((err: unknown) => {
      const first = session.failure === undefined;
      session.fail(err);
      if (first) onFailure();
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const local = new RegExp(`(https?://)?127\\.0\\.0\\.1:${port}(/v2)?/${prefix}`, 'g');
  const real = (scheme: string | undefined, v2: string | undefined) =>
    `${scheme ? `${registry.protocol}//` : ''}${registry.host}${v2 ?? ''}`;
  return {
    pullHost: `127.0.0.1:${port}/${prefix}`,
    rewrite: (text) =>
      text.replace(local, (_all, scheme?: string, v2?: string) => real(scheme, v2)),
    failure: () => session.failure,
    refusedCredentials: () => session.refused,
    notes: () => [...session.notes],
    tokens: () => [...session.tokens],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function relay(
  req: IncomingMessage,
  res: ServerResponse,
  prefix: string,
  session: RegistrySession,
): Promise<void> {
  const path = req.url ?? '/';
  const method = req.method === 'HEAD' ? 'HEAD' : req.method === 'GET' ? 'GET' : undefined;
  if (method === undefined) return void res.writeHead(405).end();
  if (path === '/v2/' || path === '/v2') return void res.writeHead(200).end('{}');
  if (!path.startsWith(`/v2/${prefix}/`)) return void res.writeHead(404).end();
  const upstream = new URL(`/v2/${path.slice(`/v2/${prefix}/`.length)}`, session.registry);
  const accept = typeof req.headers.accept === 'string' ? req.headers.accept : '*/*';
  const response = await session.send(upstream, method, accept.slice(0, 4096));
  // A busy or failing registry ends the pull here, as it ends an HTTP repository's fetch,
  // rather than through helm's retries with their waits.
  if (response.status === 408 || response.status === 429 || response.status >= 500) {
    throw new ChartUnavailableError(
      `${session.what}: ${describeUrl(response.url)} answered HTTP ${response.status}`,
    );
  }
  const headers: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const value = response.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const link = relayLink(response.headers.link, session.registry, prefix);
  if (link) headers['link'] = link;
  const length = method === 'HEAD' ? response.headers['content-length'] : undefined;
  headers['content-length'] = length ?? String(response.body.byteLength);
  res.writeHead(response.status, headers);
  res.end(method === 'HEAD' ? undefined : response.body);
}

/** A tag list's next-page link, pointed at the relay; a link elsewhere is dropped. */
function relayLink(link: string | string[] | undefined, registry: URL, prefix: string) {
  const target = typeof link === 'string' ? /^\s*<([^>]*)>(.*)$/.exec(link) : null;
  let url: URL | undefined;
  try {
    url = new URL(target?.[1] ?? '', registry);
  } catch {
    return undefined;
  }
  if (!target || url.origin !== registry.origin || !url.pathname.startsWith('/v2/')) {
    return undefined;
  }
  return `</v2/${prefix}/${url.pathname.slice(4)}${url.search}>${target[2] ?? ''}`;
}

/** What one pull learns about the registry: how to authorize, what went wrong. */
class RegistrySession {
  failure: ChartUnavailableError | undefined;
  refused = false;
  readonly notes = new Set<string>();
  readonly tokens = new Set<string>();
  #authorization: string | undefined;
  /** Whether #authorization stands for the operator's credentials (not an anonymous token). */
  #credentialed = false;
  #pending = new Map<string, Promise<Token>>();

  constructor(
    readonly registry: URL,
    private readonly limits: FetchLimits,
    readonly what: string,
  ) {}

  fail(err: unknown): void {
    this.failure ??=
      err instanceof ChartUnavailableError
        ? err
        : new ChartUnavailableError(`${this.what}: the registry relay failed`, { cause: err });
  }

  /** The registry's own requests carry its token or login; any other host its own entry. */
  readonly #authorize = (hop: URL): string | undefined =>
    hop.host === this.registry.host && hop.protocol === this.registry.protocol
      ? this.#authorization
      : ownAuthorization(hop, this.limits.network);

  async send(url: URL, method: 'GET' | 'HEAD', accept: string): Promise<ChartResponse> {
    const init = {
      method,
      headers: { accept },
      authorize: this.#authorize,
      errorBodyBytes: ERROR_BODY_BYTES,
    };
    let response = await fetchChartResponse(url, this.limits, this.what, init);
    if (response.status === 401 && (await this.#authenticate(response, url))) {
      response = await fetchChartResponse(url, this.limits, this.what, init);
    }
    const refused = response.status === 401 || response.status === 403;
    if (refused && response.authorized && this.#credentialed) {
      this.refused = true;
      this.notes.add(
        `credentials for ${this.registry.host} from FLUXLENS_REGISTRY_CONFIG were sent`,
      );
    }
    return response;
  }

  /** Sets the authorization a challenge asks for; false when there is none to give. */
  async #authenticate(response: ChartResponse, url: URL): Promise<boolean> {
    const challenge = parseChallenge(response.headers['www-authenticate']);
    const use = credentialFor(this.registry, this.limits.network);
    if (use.kind === 'withheld') {
      this.notes.add(
        `credentials for ${use.host} were not sent over plain http (an entry written http://${use.host} allows it)`,
      );
      return false;
    }
    if (!challenge) return false;
    if (challenge.scheme === 'basic') {
      if (use.kind !== 'send') return false;
      const basic = basicAuthorization(use.credential);
      if (!basic)
        this.notes.add(
          `${this.registry.host} asks for a login, and its entry holds an identity token`,
        );
      if (!basic || basic === this.#authorization) return false;
      this.#authorization = basic;
      this.#credentialed = true;
      return true;
    }
    const key = `${challenge.realm}\n${challenge.service ?? ''}\n${challenge.scope ?? ''}`;
    let pending = this.#pending.get(key);
    if (!pending) {
      const repository = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(url.pathname)?.[1] ?? '';
      pending = fetchRegistryToken({ challenge, repository, what: this.what }, this.limits);
      this.#pending.set(key, pending);
    }
    const token = await pending;
    this.tokens.add(token.value);
    if (token.note) this.notes.add(token.note);
    const bearer = `Bearer ${token.value}`;
    if (bearer === this.#authorization) return false;
    this.#authorization = bearer;
    this.#credentialed = token.authenticated;
    return true;
  }
}
