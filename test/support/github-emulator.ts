/**
 * A local GitHub REST API for tests: a node:http server on 127.0.0.1 (ephemeral port)
 * that the real Octokit client talks to (baseUrl = `apiUrl`). It keeps GitHub's state in
 * memory (installations, pulls, check runs, statuses, comments, reactions), checks the
 * App JWT and the installation or personal token like GitHub does, enforces the limits
 * fluxlens must respect, records every request (never a credential), and fails a test on
 * a request nobody expected, a request or answer GitHub's published REST description
 * refuses (github-emulator-contract.ts), or an expectation left unused.
 * GET /__emulator/state returns the state as JSON, for a test in another process.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { validJwt } from './github-emulator-auth.js';
import { findOperation, requestProblems, responseProblems } from './github-emulator-contract.js';
import {
  type Fault,
  createExpectations,
  faultResult,
  pathMatcher,
} from './github-emulator-expectations.js';
import {
  type Caller,
  type Route,
  type RouteResult,
  errorResult,
  readRoutes,
} from './github-emulator-routes.js';
import {
  type AuthKind,
  type EmulatorState,
  type PullSeed,
  type RecordedRequest,
  emptyState,
  pullFromSeed,
} from './github-emulator-state.js';
import { writeRoutes } from './github-emulator-writes.js';

export { createTestAppKey } from './github-emulator-auth.js';
export type { Fault } from './github-emulator-expectations.js';
export type { EmulatorState, RecordedRequest } from './github-emulator-state.js';

export interface GitHubEmulatorOptions {
  /** App mode: the App whose JWTs (signed with the matching private key) are accepted. */
  app?: { id: number; slug: string; publicKey: string };
  /** Token mode: the one personal access token accepted, and whose it is. */
  user?: { login: string; token: string };
  /**
   * Token mode with an App's installation token, as actions/create-github-app-token makes
   * one: it writes as `<slug>[bot]`, and GitHub answers its GET /user with 403.
   */
  installationToken?: { token: string; installationId: number; app: { id: number; slug: string } };
  /** GitHub Enterprise Server style prefix, e.g. `/api/v3`; requests outside it get 404. */
  pathPrefix?: string;
  /** Lifetime of installation tokens; GitHub's is an hour. */
  tokenTtlSeconds?: number;
}

export interface SeedComment {
  owner: string;
  repo: string;
  issueNumber: number;
  body: string;
  author: string;
  authorType?: 'User' | 'Bot';
  /** The App that wrote it, for a bot's comment (GitHub's `performed_via_github_app`). */
  viaApp?: { id: number; slug: string };
}

export interface GitHubEmulator {
  /** `http://127.0.0.1:PORT` */
  url: string;
  /** `url` plus the path prefix: what Octokit's baseUrl should be. */
  apiUrl: string;
  /** A deep copy of the state, safe to keep. */
  state(): EmulatorState;
  /** Recorded requests, optionally only those matching method and path pattern. */
  requests(method?: string, pattern?: string | RegExp): RecordedRequest[];
  seedInstallation(installation: { id: number; account?: string; repositories: string[] }): void;
  /** Adds a pull, or replaces the one with the same repository and number. */
  seedPull(pull: PullSeed): void;
  /** `login`'s permission on the repository (admin, write, read); anyone else reads. */
  seedCollaborator(collaborator: {
    owner: string;
    repo: string;
    login: string;
    permission: 'admin' | 'write' | 'read';
  }): void;
  /** A comment by someone (a person or another bot); returns its id. */
  seedComment(comment: SeedComment): number;
  /**
   * Exactly `times` requests matching method and pattern will come. Patterns are paths
   * (without the prefix) with `:name` or `*` for one segment and `**` for the rest.
   */
  expect(method: string, pattern: string | RegExp, times?: number): void;
  /** Any number of matching requests is fine. */
  allow(method: string, pattern: string | RegExp): void;
  /**
   * The next `times` matching requests are ones GitHub's REST description refuses, sent on
   * purpose (a test of what fluxlens does with GitHub's 422): no breach, but each must come.
   * They still need `expect` or `allow`.
   */
  refuse(method: string, pattern: string | RegExp, times?: number): void;
  /**
   * The next `times` matching requests get `fault` (a named one, or any status with its
   * message and headers); each counts as expected.
   */
  fail(method: string, pattern: string | RegExp, fault: Fault, times?: number): void;
  /**
   * Every installation token issued so far, for tests that check no credential leaked.
   * Kept out of state(): that is served over HTTP and recorded by tests.
   */
  issuedTokens(): string[];
  assertNoUnexpected(): void;
  assertAllUsed(): void;
  close(): Promise<void>;
}

const ROUTES = [...readRoutes, ...writeRoutes].map((route) => ({
  ...route,
  matcher: pathMatcher(route.pattern),
  names: route.pattern
    .split('/')
    .filter((s) => s.startsWith(':'))
    .map((s) => s.slice(1)),
}));

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  return raw === '' ? undefined : (JSON.parse(raw) as unknown);
}

function send(res: ServerResponse, result: RouteResult): void {
  res.writeHead(result.status, {
    'content-type': 'application/json; charset=utf-8',
    'x-github-request-id': randomBytes(8).toString('hex'),
    'x-ratelimit-limit': '5000',
    'x-ratelimit-remaining': '4999',
    ...result.headers,
  });
  res.end(result.body === undefined ? '' : JSON.stringify(result.body));
}

/** Whether `caller` may use `route` (GitHub answers 404 for a repository out of reach). */
function authorize(
  route: Route,
  caller: Caller,
  params: Record<string, string>,
  state: EmulatorState,
): RouteResult | undefined {
  if (route.auth === 'jwt') {
    return caller.kind === 'jwt'
      ? undefined
      : errorResult(401, 'A JSON web token could not be decoded');
  }
  if (caller.kind === 'jwt') return errorResult(401, 'Bad credentials');
  if (route.auth === 'user' && caller.kind !== 'pat') {
    return errorResult(403, 'Resource not accessible by integration');
  }
  if (route.auth === 'installation' && caller.kind !== 'installation') {
    return errorResult(403, 'Resource not accessible by personal access token');
  }
  if (route.auth === 'repo' && caller.kind === 'installation') {
    const inst = state.installations.find((i) => i.id === caller.installationId);
    if (!inst?.repositories.includes(`${params.owner}/${params.repo}`)) {
      return errorResult(404, 'Not Found');
    }
  }
  return undefined;
}

export async function startGitHubEmulator(
  options: GitHubEmulatorOptions = {},
): Promise<GitHubEmulator> {
  const prefix = (options.pathPrefix ?? '').replace(/\/$/, '');
  const state = emptyState();
  let lastId = 1000;
  const tokens = new Map<string, { installationId: number; expiresAt: number }>();
  const expectations = createExpectations();
  const { app, user, installationToken } = options;
  const appLogin = app ? `${app.slug}[bot]` : '';
  const appRef = app ? { id: app.id, slug: app.slug } : undefined;

  function resolveAuth(header: string | undefined): { kind: AuthKind; caller?: Caller } {
    const value = /^(?:bearer|token)\s+(\S+)$/i.exec(header ?? '')?.[1];
    if (value === undefined) return { kind: header ? 'invalid' : 'none' };
    if (app && value.split('.').length === 3) {
      if (!validJwt(value, app)) return { kind: 'invalid' };
      return { kind: 'jwt', caller: { kind: 'jwt', login: appLogin, type: 'Bot' } };
    }
    const issued = tokens.get(value);
    if (issued && issued.expiresAt > Date.now()) {
      const { installationId } = issued;
      const caller: Caller = {
        kind: 'installation',
        installationId,
        login: appLogin,
        type: 'Bot',
        ...(appRef ? { app: appRef } : {}),
      };
      return { kind: 'installation', caller };
    }
    if (installationToken && value === installationToken.token) {
      const { installationId, app: owner } = installationToken;
      const login = `${owner.slug}[bot]`;
      const caller: Caller = {
        kind: 'installation',
        installationId,
        login,
        type: 'Bot',
        app: owner,
      };
      return { kind: 'installation', caller };
    }
    if (user && value === user.token) {
      return { kind: 'pat', caller: { kind: 'pat', login: user.login, type: 'User' } };
    }
    return { kind: 'invalid' };
  }

  function issueToken(installationId: number) {
    const token = `ghs_${randomBytes(27).toString('base64url')}`;
    const expiresAt = Date.now() + (options.tokenTtlSeconds ?? 3600) * 1000;
    tokens.set(token, { installationId, expiresAt });
    state.tokensIssued[installationId] = (state.tokensIssued[installationId] ?? 0) + 1;
    return { token, expires_at: new Date(expiresAt).toISOString() };
  }

  type Parsed = { method: string; path: string; query: Record<string, string>; body: unknown };
  function route(req: Parsed, caller: Caller | undefined, host: string): RouteResult {
    for (const candidate of ROUTES) {
      const match = candidate.method === req.method ? candidate.matcher.exec(req.path) : null;
      if (!match) continue;
      const values = candidate.names.map((name, i) => [
        name,
        decodeURIComponent(match[i + 1] ?? ''),
      ]);
      const params: Record<string, string> = Object.fromEntries(values);
      if (!caller) return errorResult(401, 'Bad credentials');
      const refused = authorize(candidate, caller, params, state);
      if (refused) return refused;
      const body = typeof req.body === 'object' && req.body !== null ? req.body : {};
      return candidate.handle({
        ...req,
        params,
        body: body as Record<string, unknown>,
        caller,
        state,
        apiUrl: `http://${host}${prefix}`,
        app,
        nextId: () => ++lastId,
        issueToken,
      });
    }
    return errorResult(404, 'Not Found');
  }

  /**
   * GitHub's REST description judges both sides: a request it refuses is answered 422 as
   * GitHub would, and either breach fails the test (assertNoUnexpected).
   */
  function refereed(req: Parsed, caller: Caller | undefined, host: string): RouteResult {
    const operation = findOperation(req.method, req.path);
    const label = `${req.method} ${req.path}`;
    if (!operation) {
      expectations.breach(`${label}: GitHub has no such operation`);
      return errorResult(404, 'Not Found');
    }
    const refused = requestProblems(operation, req);
    if (refused.length > 0) {
      expectations.breach(`${label} (${operation.operationId}): ${refused.join('; ')}`, req);
      return errorResult(422, `Invalid request.\n\n${refused.join('\n')}`);
    }
    const result = route(req, caller, host);
    const wrong = responseProblems(operation, result.status, result.body);
    if (wrong.length > 0) {
      const where = `${operation.operationId} ${result.status}`;
      expectations.breach(`${label}: the emulator's answer (${where}): ${wrong.join('; ')}`);
    }
    return result;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const method = req.method ?? 'GET';
    if (method === 'GET' && url.pathname === '/__emulator/state') {
      return send(res, { status: 200, body: state });
    }
    const inPrefix = url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
    const path = inPrefix ? url.pathname.slice(prefix.length) || '/' : url.pathname;
    let body: unknown;
    try {
      body = await readBody(req);
    } catch {
      return send(res, errorResult(400, 'Problems parsing JSON'));
    }
    const query = Object.fromEntries(url.searchParams);
    const auth = resolveAuth(req.headers.authorization);
    const userAgent = req.headers['user-agent'] ?? '';
    const record: RecordedRequest = {
      method,
      path,
      query,
      body,
      auth: auth.kind,
      userAgent,
      status: 0,
    };
    const installationId = auth.caller?.installationId;
    if (installationId !== undefined) record.installationId = installationId;
    state.requests.push(record);
    const { fault } = expectations.claim(method, path);
    const host = req.headers.host ?? '127.0.0.1';
    const result = fault
      ? faultResult(fault)
      : inPrefix
        ? refereed({ method, path, query, body }, auth.caller, host)
        : errorResult(404, 'Not Found');
    record.status = result.status;
    send(res, result);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => send(res, errorResult(500, String(err))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    apiUrl: `${url}${prefix}`,
    state: () => structuredClone(state),
    requests: (method, pattern) =>
      structuredClone(state.requests).filter(
        (r) =>
          (method === undefined || r.method === method) &&
          (pattern === undefined || pathMatcher(pattern).test(r.path)),
      ),
    seedInstallation: ({ id, account, repositories }) => {
      const owner = account ?? repositories[0]?.split('/')[0] ?? 'org';
      state.installations.push({ id, account: owner, repositories });
    },
    seedPull: (pull) => {
      // A pull seeded again (a new head pushed) replaces the one it was.
      const seeded = pullFromSeed(pull);
      state.pulls = state.pulls.filter(
        (p) => !(p.owner === seeded.owner && p.repo === seeded.repo && p.number === seeded.number),
      );
      state.pulls.push(seeded);
    },
    seedCollaborator: ({ owner, repo, login, permission }) => {
      state.collaborators[`${owner}/${repo}/${login}`.toLowerCase()] = permission;
    },
    seedComment: ({ authorType, viaApp, ...comment }) => {
      const now = new Date().toISOString();
      const id = ++lastId;
      const type = authorType ?? 'User';
      state.comments.push({
        ...comment,
        id,
        authorType: type,
        viaApp: viaApp ?? null,
        createdAt: now,
        updatedAt: now,
      });
      return id;
    },
    expect: (method, pattern, times = 1) => expectations.add(method, pattern, times),
    allow: (method, pattern) => expectations.add(method, pattern, Number.POSITIVE_INFINITY),
    refuse: (method, pattern, times = 1) => expectations.addRefusal(method, pattern, times),
    fail: (method, pattern, fault, times = 1) => expectations.add(method, pattern, times, fault),
    issuedTokens: () => [...tokens.keys()],
    assertNoUnexpected: () => expectations.assertNoUnexpected(),
    assertAllUsed: () => expectations.assertAllUsed(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
