/**
 * The GitHub emulator's read routes: App identity, installation tokens, users, pull
 * requests and installation repositories. Each handler is a plain function of the parsed
 * request and the state; the server (github-emulator.ts) does auth, faults and recording.
 */
import {
  appJson,
  collaboratorPermissionJson,
  installationJson,
  installationRepoJson,
  installationTokenJson,
  privateUserJson,
  pullJson,
} from './github-emulator-json.js';
import type { EmulatedPull, EmulatorState } from './github-emulator-state.js';

/** Who made the request, as the server resolved it from the Authorization header. */
export interface Caller {
  kind: 'jwt' | 'installation' | 'pat';
  installationId?: number;
  /** Login comments and statuses are attributed to. */
  login: string;
  type: 'User' | 'Bot';
  /** The App an installation token belongs to: GitHub names it on what the token writes. */
  app?: { id: number; slug: string };
}

export interface RouteContext {
  params: Record<string, string>;
  query: Record<string, string>;
  body: Record<string, unknown>;
  caller: Caller;
  state: EmulatorState;
  /** Absolute API root including any prefix, for Link headers and urls. */
  apiUrl: string;
  path: string;
  app: { id: number; slug: string } | undefined;
  nextId(): number;
  issueToken(installationId: number): { token: string; expires_at: string };
}

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** `jwt`: App JWT; `repo`: a token that reaches :owner/:repo; `installation` / `user`. */
export type RouteAuth = 'jwt' | 'repo' | 'installation' | 'user';

export interface Route {
  method: string;
  pattern: string;
  auth: RouteAuth;
  handle(ctx: RouteContext): RouteResult;
}

const DOCS = 'https://docs.github.com/rest';

export function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

export function errorResult(status: number, message: string, errors?: unknown[]): RouteResult {
  return { status, body: { message, documentation_url: DOCS, ...(errors ? { errors } : {}) } };
}

export function validationFailed(resource: string, field: string, message: string): RouteResult {
  return errorResult(422, 'Validation Failed', [{ resource, code: 'custom', field, message }]);
}

/** Answers one page of `items` with GitHub's Link header when more pages exist. */
export function paginate<T>(
  items: T[],
  ctx: RouteContext,
): { page: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(ctx.query.per_page ?? 30) || 30, 1), 100);
  const page = Math.max(Number(ctx.query.page ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (n: number) => {
    const query = new URLSearchParams({ ...ctx.query, per_page: String(perPage), page: String(n) });
    return `${ctx.apiUrl}${ctx.path}?${query.toString()}`;
  };
  const rels: string[] = [];
  if (page < last) rels.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
  if (page > 1) rels.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`);
  const headers: Record<string, string> = rels.length > 0 ? { link: rels.join(', ') } : {};
  return { page: items.slice((page - 1) * perPage, page * perPage), headers };
}

function findPull(ctx: RouteContext): EmulatedPull | undefined {
  const { owner, repo, number } = ctx.params;
  return ctx.state.pulls.find(
    (p) => p.owner === owner && p.repo === repo && p.number === Number(number),
  );
}

export const readRoutes: Route[] = [
  {
    method: 'GET',
    pattern: '/app',
    auth: 'jwt',
    handle: (ctx) =>
      ctx.app ? { status: 200, body: appJson(ctx.app) } : errorResult(404, 'Not Found'),
  },
  {
    method: 'GET',
    pattern: '/app/installations',
    auth: 'jwt',
    handle: (ctx) => ({
      status: 200,
      body: ctx.state.installations.map(installationJson),
    }),
  },
  {
    method: 'POST',
    pattern: '/app/installations/:id/access_tokens',
    auth: 'jwt',
    handle: (ctx) => {
      const id = Number(ctx.params.id);
      if (!ctx.state.installations.some((i) => i.id === id)) return errorResult(404, 'Not Found');
      const { token, expires_at } = ctx.issueToken(id);
      return { status: 201, body: installationTokenJson(token, expires_at) };
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/installation',
    auth: 'jwt',
    handle: (ctx) => {
      const name = `${ctx.params.owner}/${ctx.params.repo}`;
      const found = ctx.state.installations.find((i) => i.repositories.includes(name));
      return found ? { status: 200, body: installationJson(found) } : errorResult(404, 'Not Found');
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/collaborators/:username/permission',
    auth: 'repo',
    handle: (ctx) => {
      const { owner, repo, username } = ctx.params;
      const key = `${owner ?? ''}/${repo ?? ''}/${username ?? ''}`.toLowerCase();
      // GitHub answers a login it does not know with 404; anyone else without a grant reads.
      const permission = ctx.state.collaborators[key] ?? 'read';
      return { status: 200, body: collaboratorPermissionJson(username ?? '', permission) };
    },
  },
  {
    method: 'GET',
    pattern: '/user',
    auth: 'user',
    handle: (ctx) => ({ status: 200, body: privateUserJson(ctx.caller.login) }),
  },
  {
    method: 'GET',
    pattern: '/installation/repositories',
    auth: 'installation',
    handle: (ctx) => {
      const inst = ctx.state.installations.find((i) => i.id === ctx.caller.installationId);
      const repos = (inst?.repositories ?? []).map((name, i) => installationRepoJson(name, i + 1));
      const { page, headers } = paginate(repos, ctx);
      return { status: 200, body: { total_count: repos.length, repositories: page }, headers };
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls/:number',
    auth: 'repo',
    handle: (ctx) => {
      const pull = findPull(ctx);
      return pull
        ? { status: 200, body: pullJson(pull, ctx.apiUrl) }
        : errorResult(404, 'Not Found');
    },
  },
  {
    method: 'GET',
    pattern: '/repos/:owner/:repo/pulls',
    auth: 'repo',
    handle: (ctx) => {
      const state = ctx.query.state ?? 'open';
      const pulls = ctx.state.pulls
        .filter((p) => p.owner === ctx.params.owner && p.repo === ctx.params.repo)
        .filter((p) => state === 'all' || p.state === state)
        .sort((a, b) => b.number - a.number);
      const { page, headers } = paginate(pulls, ctx);
      return { status: 200, body: page.map((p) => pullJson(p, ctx.apiUrl, true)), headers };
    },
  },
];
