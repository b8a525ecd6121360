/**
 * GET /reports/:owner/:repo/pulls/:number (GitHub's) and /reports/gitea/:owner/:repo/pulls/
 * :number (Gitea's and Forgejo's): a PR's HTML report, for the API token or for a
 * signed link that has not expired. The report is untrusted content rendered by report/,
 * so the page may run nothing it did not bring inline and may load nothing at all.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { verifyReportSignature } from '../report-link.js';
import { requireToken } from './api-routes.js';
import { HttpError } from './http-error.js';
import { pullFromParams } from './pull-params.js';
import { type ServerContext, guarded } from './server-context.js';

export const REPORT_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'private',
};

/** Whether the query tries to be a signed link at all, before judging whether it is one. */
const LinkQuery = z.object({ expires: z.unknown(), sig: z.unknown() });

export const SignedQuery = z.object({
  expires: z
    .string()
    .regex(/^[0-9]{1,12}$/)
    .transform(Number),
  sig: z.string().regex(/^[0-9a-fA-F]{64}$/),
});

export function registerReportRoute(app: FastifyInstance, ctx: ServerContext): void {
  const render = ctx.deps.renderReportHtml;
  const { apiToken, reportSigningKey } = ctx.deps;
  if (render === undefined || (!apiToken && !reportSigningKey)) return;

  const serve = async (request: FastifyRequest, reply: FastifyReply) => {
    const pull = pullFromParams(request.params);
    authorizeReportAccess(request, ctx, 'report', (key, expires, sig, now) =>
      verifyReportSignature(key, pull, expires, sig, now),
    );
    const stored = await guarded(() => ctx.deps.results.get(pull));
    if (stored === undefined) throw new HttpError(404, 'no report for this pull request');
    return reply
      .headers(REPORT_SECURITY_HEADERS)
      .type('text/html; charset=utf-8')
      .send(render(stored.resultJson));
  };
  app.get('/reports/:owner/:repo/pulls/:number', serve);
  // Another forge's reports: its name first (the one segment more keeps the routes apart).
  app.get('/reports/:forge/:owner/:repo/pulls/:number', serve);
}

/**
 * A bearer token decides when present; otherwise a signed link must be valid, as `verify`
 * judges its signature (a PR's report, the reviews page: each signed over its own message,
 * so one never opens the other). Returns the link's expiry (seconds), or undefined for the
 * token; `what` names the page in the refusal.
 */
export function authorizeReportAccess(
  request: FastifyRequest,
  ctx: ServerContext,
  what: string,
  verify: (key: string, expires: number, sig: string, now: Date) => boolean,
): number | undefined {
  const { apiToken, reportSigningKey } = ctx.deps;
  if (request.headers.authorization !== undefined) {
    if (!apiToken) throw new HttpError(401, 'bearer tokens are not accepted here', 'bad-token');
    requireToken(request, apiToken);
    return undefined;
  }
  const link = LinkQuery.safeParse(request.query);
  if (!link.success || (link.data.sig === undefined && link.data.expires === undefined)) {
    throw new HttpError(401, 'a bearer token or a signed link is required', 'bad-token');
  }
  const signed = SignedQuery.safeParse(link.data);
  const valid =
    signed.success &&
    reportSigningKey !== undefined &&
    reportSigningKey !== '' &&
    verify(reportSigningKey, signed.data.expires, signed.data.sig, ctx.now());
  if (!valid || !signed.success) {
    throw new HttpError(403, `${what} link is invalid or expired`, 'bad-report-signature');
  }
  return signed.data.expires;
}
