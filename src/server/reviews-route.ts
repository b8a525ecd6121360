/**
 * GET /reports: the reviews page, the latest stored review of the most recently reviewed
 * PRs across repositories, filterable by repository and verdict level, for the API token
 * or a signed link to the page (signReviewsUrl), which the page offers for a day when the
 * token opened it. Its links to each report are signed to expire with the page's own link,
 * or within REPORT_LINK_MS when the token opened it.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { isOwnerName, isRepositoryName } from '../model/index.js';
import {
  reportPath,
  signReportUrl,
  signReviewsUrl,
  verifyReviewsSignature,
} from '../report-link.js';
import { HttpError } from './http-error.js';
import { authorizeReportAccess, REPORT_SECURITY_HEADERS, SignedQuery } from './report-route.js';
import { type ServerContext, guarded } from './server-context.js';
import type { ReviewsPageData } from './types.js';

/** How many reviews the page lists (the newest), before the verdict filter. */
const REVIEWS_SHOWN = 100;
/** How long a report link on a page opened with the token stays valid. */
const REPORT_LINK_MS = 60 * 60 * 1000;
const SHARE_LINK_MS = 24 * 60 * 60 * 1000;

/** An empty form field means no filter. */
const blank = (value: unknown) => (value === '' ? undefined : value);

const Filters = z.object({
  repository: z.preprocess(
    blank,
    z
      .string()
      .refine((text) => {
        const [owner = '', repo = '', ...rest] = text.split('/');
        return rest.length === 0 && isOwnerName(owner) && isRepositoryName(repo);
      })
      .optional(),
  ),
  verdict: z.preprocess(blank, z.enum(['none', 'info', 'caution', 'danger']).optional()),
});

export function registerReviewsRoute(app: FastifyInstance, ctx: ServerContext): void {
  const render = ctx.deps.renderReviewsHtml;
  const { apiToken, reportSigningKey, publicUrl } = ctx.deps;
  if (render === undefined || (!apiToken && !reportSigningKey)) return;

  app.get('/reports', async (request, reply) => {
    const expires = authorizeReportAccess(request, ctx, 'reviews', verifyReviewsSignature);
    const filters = Filters.safeParse(request.query);
    if (!filters.success) {
      throw new HttpError(
        400,
        'repository must be owner/repo; verdict one of none, info, caution, danger',
      );
    }
    const { repository, verdict } = filters.data;
    const [owner = '', repo = ''] = repository?.split('/') ?? [];
    const stored = await guarded(() =>
      ctx.deps.results.list({
        limit: REVIEWS_SHOWN,
        ...(repository ? { repository: { owner, repo } } : {}),
      }),
    );
    const linkExpiry = new Date(
      expires === undefined ? ctx.now().getTime() + REPORT_LINK_MS : expires * 1000,
    );
    const page: ReviewsPageData = {
      reviews: stored.map((review) => ({
        ...review,
        reportUrl: reportSigningKey
          ? signReportUrl('', reportSigningKey, review.pull, linkExpiry)
          : reportPath(review.pull),
      })),
      ...(repository ? { repository } : {}),
      ...(verdict ? { verdict } : {}),
      carry: expires === undefined ? {} : signedParams(request),
      ...(expires === undefined && reportSigningKey
        ? { shareUrl: signReviewsUrl(publicUrl ?? '', reportSigningKey, shareExpiry(ctx)) }
        : {}),
    };
    return reply
      .headers(REPORT_SECURITY_HEADERS)
      .header(
        'content-security-policy',
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
      )
      .type('text/html; charset=utf-8')
      .send(render(page));
  });
}

/** A page link handed on lasts a day: the page lists every repository's reviews. */
function shareExpiry(ctx: ServerContext): Date {
  return new Date(ctx.now().getTime() + SHARE_LINK_MS);
}

function signedParams(request: FastifyRequest): Record<string, string> {
  const query = SignedQuery.parse(request.query);
  return { expires: String(query.expires), sig: query.sig };
}
