/**
 * A private OCI registry for tests: a node:http front on 127.0.0.1 that asks for
 * credentials before it passes GET and HEAD requests on to a real docker-registry
 * (oci-registry.ts, where tests push the charts). It asks for a Basic login, or for Bearer
 * tokens from a token service either on a port of its own (another host, as fluxlens counts
 * hosts) or under /token on the registry itself. The token service gives a token that
 * opens the registry for its login, and an anonymous one that does not, as Docker Hub does
 * for private images (or does, for public ones: anonymousPull).
 * Blob downloads may answer with a redirect to a TLS server on a third port of the same
 * address, which serves them without asking. Every party records each request with the
 * Authorization header it carried.
 */
import { randomBytes } from 'node:crypto';
import {
  createServer as createHttpServer,
  request,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SeenRequest } from './chart-server.js';
import type { TestCertificate } from './tls.js';

export interface Login {
  username: string;
  password: string;
}

export interface PrivateRegistryOptions {
  /** The registry the front passes requests to, `127.0.0.1:PORT`. */
  backend: string;
  auth: 'basic' | 'token-elsewhere' | 'token-here';
  /** What the registry (basic) or its token service accepts. */
  login: Login;
  /** Blob downloads redirect to https on another port of 127.0.0.1. */
  blobsElsewhere?: TestCertificate;
  /** Anonymous tokens open the registry too: public images, as Docker Hub serves them. */
  anonymousPull?: boolean;
}

export interface PrivateRegistry {
  /** `127.0.0.1:PORT` of the front. */
  host: string;
  /** `127.0.0.1:PORT` of the token service (the front's own host for token-here). */
  realmHost: string;
  /** What each party was sent. */
  seen: { registry: SeenRequest[]; realm: SeenRequest[]; blobs: SeenRequest[] };
  /** Every token the token service gave out, anonymous ones too. */
  tokens: string[];
  /** The Accept header of each registry request, in the order of seen.registry. */
  accepts: string[];
  clear(): void;
  stop(): Promise<void>;
}

export async function startPrivateRegistry(
  options: PrivateRegistryOptions,
): Promise<PrivateRegistry> {
  const seen = { registry: [] as SeenRequest[], realm: [] as SeenRequest[], blobs: [] };
  const tokens: string[] = [];
  const accepts: string[] = [];
  const valid = new Set<string>();
  const basic = `Basic ${Buffer.from(`${options.login.username}:${options.login.password}`).toString('base64')}`;
  const record = (list: SeenRequest[], req: IncomingMessage) => {
    const { authorization } = req.headers;
    list.push(authorization ? { path: req.url ?? '/', authorization } : { path: req.url ?? '/' });
  };
  const issueToken: RequestListener = (req, res) => {
    record(seen.realm, req);
    const good = req.headers.authorization === basic;
    const token = `${good ? 'tok' : 'anon'}-${randomBytes(12).toString('hex')}`;
    tokens.push(token);
    if (good || options.anonymousPull) valid.add(token);
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token }));
  };
  const servers: Server[] = [];
  const listen = async (server: Server): Promise<string> => {
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `127.0.0.1:${(server.address() as AddressInfo).port}`;
  };
  const realm = options.auth === 'token-elsewhere' ? createHttpServer(issueToken) : undefined;
  const realmHost = realm ? await listen(realm) : '';
  const blobs = options.blobsElsewhere
    ? createHttpsServer(options.blobsElsewhere, (req, res) => {
        record(seen.blobs, req);
        passOn(req, res, options.backend);
      })
    : undefined;
  const blobsHost = blobs ? await listen(blobs) : '';
  let host = '';
  const front = createHttpServer((req, res) => {
    if (options.auth === 'token-here' && req.url?.startsWith('/token')) return issueToken(req, res);
    record(seen.registry, req);
    accepts.push(req.headers.accept ?? '');
    const given = req.headers.authorization ?? '';
    const open =
      options.auth === 'basic' ? given === basic : valid.has(given.replace(/^Bearer /, ''));
    if (!open) {
      const scope = /^\/v2\/(.+?)\/(?:manifests|blobs|tags)\//.exec(req.url ?? '')?.[1];
      const tokenUrl = `http://${options.auth === 'token-here' ? host : realmHost}/token`;
      const challenge =
        options.auth === 'basic'
          ? 'Basic realm="registry"'
          : `Bearer realm="${tokenUrl}",service="test-registry"${scope ? `,scope="repository:${scope}:pull"` : ''}`;
      res.writeHead(401, { 'www-authenticate': challenge, 'content-type': 'application/json' });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
      return;
    }
    if (blobs && req.method === 'GET' && /\/blobs\/sha256:/.test(req.url ?? '')) {
      res.writeHead(307, { location: `https://${blobsHost}${req.url ?? '/'}` }).end();
      return;
    }
    passOn(req, res, options.backend);
  });
  host = await listen(front);
  return {
    host,
    realmHost: realm ? realmHost : host,
    seen,
    tokens,
    accepts,
    clear: () => {
      for (const list of Object.values(seen)) list.splice(0);
      accepts.splice(0);
    },
    stop: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}

/** The request, without its Authorization, to the docker-registry behind the front. */
function passOn(req: IncomingMessage, res: ServerResponse, backend: string): void {
  const headers = { ...req.headers };
  delete headers.authorization;
  const upstream = request(
    `http://${backend}${req.url ?? '/'}`,
    { method: req.method, headers: { ...headers, host: backend } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.once('error', () => res.writeHead(502).end());
  req.pipe(upstream);
}
