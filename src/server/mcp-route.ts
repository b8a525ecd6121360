/**
 * POST /mcp: the MCP endpoint (Streamable HTTP), for the API token only, and registered only
 * when one is configured. Stateless: every call gets a fresh MCP server and transport, and
 * answers in one JSON body, so any replica behind a load balancer can take any call and no
 * session has to stick to one. The tools read what the API serves and queue what the
 * API's re-render queues, through the same limits; see mcp/.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { type McpDeps, Refusal, createMcpServer } from '../mcp/index.js';
import type { EnqueueOutcome, RangeJob, RenderJob, RepositoryRef } from '../queue/index.js';
import { FLUXLENS_VERSION } from '../version.js';
import { requireToken } from './api-routes.js';
import { admit, enqueueJobs, tokenBucket } from './enqueue-jobs.js';
import { HttpError } from './http-error.js';
import { inAllowlist } from './pull-params.js';
import { type ServerContext, guarded } from './server-context.js';
import type { Installation } from './types.js';

/** A JSON-RPC call of a tool is a few fields; nothing legitimate comes near this. */
const MCP_BODY_LIMIT = 64 * 1024;
/** How long an installation lookup is reused: a new installation is seen within a minute. */
const INSTALLATION_TTL_MS = 60_000;

export function registerMcpRoute(app: FastifyInstance, ctx: ServerContext): void {
  const token = ctx.deps.apiToken;
  if (token === undefined || token === '') return;
  const installations = installationCache(ctx);
  void app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => requireToken(request, token));

    scope.post('/mcp', { bodyLimit: MCP_BODY_LIMIT }, async (request, reply) => {
      const deps = mcpDeps(ctx, token, installations, request.log);
      const server = createMcpServer(deps);
      // Without a session id generator the transport is stateless.
      const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      } catch (err) {
        // Past hijack the error handler cannot answer: the reply is ours to end.
        request.log.error({ err }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        }
        reply.raw.end(JSON.stringify({ error: 'internal error' }));
      }
    });

    // Stateless: no stream to open and no session to end.
    const notAllowed = async () => {
      throw new HttpError(405, 'the MCP endpoint takes POST only (stateless)');
    };
    scope.get('/mcp', notAllowed);
    scope.delete('/mcp', notAllowed);
  });
}

type InstallationLookup = (repository: RepositoryRef) => Promise<Installation>;

/** What every job the endpoint queues carries. */
type JobCommon = Pick<RangeJob, 'explicit' | 'requestedAt' | 'installationId'>;

function mcpDeps(
  ctx: ServerContext,
  token: string,
  installations: InstallationLookup,
  log: FastifyBaseLogger,
): McpDeps {
  const { deps } = ctx;
  const checkRepository = async (
    repository: RepositoryRef,
  ): Promise<Extract<Installation, { installed: true }>> => {
    const name = `${repository.owner}/${repository.repo}`;
    if (!inAllowlist({ ...repository, pullNumber: 1 }, ctx.allowlist)) {
      throw new Refusal(`${name} is not in this server's repository allowlist`);
    }
    const installation = await refusing(() => installations(repository));
    if (!installation.installed) throw new Refusal(`the GitHub App is not installed on ${name}`);
    return installation;
  };
  /** Through the re-render API's limits and path, for the repository's installation. */
  const queue = async (
    repository: RepositoryRef,
    make: (common: JobCommon) => RangeJob | RenderJob,
  ): Promise<EnqueueOutcome> => {
    const installation = await checkRepository(repository);
    const limits = deps.rateLimits;
    await refusing(() =>
      admit(ctx, [
        [tokenBucket(token), limits?.apiRendersPerToken],
        [`owner:${repository.owner.toLowerCase()}`, limits?.apiRendersPerOwner],
      ]),
    );
    const job = make({
      explicit: true,
      requestedAt: ctx.now().toISOString(),
      ...(installation.installationId === undefined
        ? {}
        : { installationId: installation.installationId }),
    });
    const [outcome] = await refusing(() => enqueueJobs(ctx, log, [job]));
    if (outcome === undefined) throw new Refusal('the job was not queued');
    return outcome;
  };
  return {
    results: deps.results,
    checkRepository: async (repository) => {
      await checkRepository(repository);
    },
    reviewRange: (range) => queue(range, (common) => ({ ...common, range, reason: 'range' })),
    renderEntry: (render) => queue(render, (common) => ({ ...common, render, reason: 'render' })),
    jobState: (jobId) => refusing(() => guarded(() => deps.queue.state(jobId))),
    ...(deps.renderReportMarkdown === undefined
      ? {}
      : { renderMarkdown: deps.renderReportMarkdown }),
    rules: deps.rules ?? [],
    logger: log,
    version: FLUXLENS_VERSION,
  };
}

/** The API's refusals (rate limit, queue down) reach an MCP caller as tool errors. */
async function refusing<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof HttpError) throw new Refusal(err.message, { cause: err });
    throw err;
  }
}

/**
 * Which installation covers a repository, asked of GitHub once a minute at most per
 * repository. Without a lookup (token mode) every repository the allowlist lets through
 * counts as reachable: the token decides.
 */
function installationCache(ctx: ServerContext): InstallationLookup {
  const lookup = ctx.deps.installation;
  const known = new Map<string, { at: number; installation: Promise<Installation> }>();
  return (repository) => {
    if (lookup === undefined) return Promise.resolve({ installed: true });
    const key = `${repository.owner}/${repository.repo}`.toLowerCase();
    const now = ctx.now().getTime();
    const cached = known.get(key);
    if (cached !== undefined && now - cached.at < INSTALLATION_TTL_MS) return cached.installation;
    const installation = lookup(repository);
    // A failed lookup is not remembered: the next call asks again.
    installation.catch(() => known.delete(key));
    known.set(key, { at: now, installation });
    if (known.size > MAX_CACHED_REPOSITORIES) known.delete(known.keys().next().value ?? key);
    return installation;
  };
}

const MAX_CACHED_REPOSITORIES = 1000;
