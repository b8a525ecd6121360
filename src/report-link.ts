/**
 * Signed, expiring links to a PR's HTML report, so a PR comment can link to it without
 * handing out the API token. The worker signs them and the server checks them, so this
 * sits below both and imports nothing of ours. The signature covers the PR and the expiry.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The PR a link is for; queue/'s PullRef has this shape. */
export interface ReportLinkPull {
  /** Absent or `github`: GitHub's links keep the path and signature they have always had. */
  forge?: string | undefined;
  owner: string;
  repo: string;
  pullNumber: number;
}

/** Another forge's name comes first: the same owner/repo on two forges are two PRs. */
function forgePrefix(pull: ReportLinkPull): string {
  return pull.forge === undefined || pull.forge === 'github'
    ? ''
    : `${encodeURIComponent(pull.forge)}/`;
}

/** Each part URI-encoded, so `a/b` + `c` and `a` + `b/c` sign different messages. */
function reportSignature(key: string, pull: ReportLinkPull, expires: number): string {
  const owner = encodeURIComponent(pull.owner);
  const repo = encodeURIComponent(pull.repo);
  return createHmac('sha256', key)
    .update(`${forgePrefix(pull)}${owner}/${repo}/${pull.pullNumber}:${expires}`, 'utf8')
    .digest('hex');
}

/** The report's path on the server, without the public URL. */
export function reportPath(pull: ReportLinkPull): string {
  const owner = encodeURIComponent(pull.owner);
  const repo = encodeURIComponent(pull.repo);
  return `/reports/${forgePrefix(pull)}${owner}/${repo}/pulls/${pull.pullNumber}`;
}

/** The report's URL under publicUrl, valid until expiresAt (to the second). */
export function signReportUrl(
  publicUrl: string,
  key: string,
  pull: ReportLinkPull,
  expiresAt: Date,
): string {
  return signedUrl(publicUrl, reportPath(pull), expiresAt, (e) => reportSignature(key, pull, e));
}

/**
 * Whether `sig` was made with `key` for this PR and `expires` (seconds since the epoch) is
 * still ahead of now.
 */
export function verifyReportSignature(
  key: string,
  pull: ReportLinkPull,
  expires: number,
  sig: string,
  now: Date,
): boolean {
  return signatureHolds(sig, expires, now, (e) => reportSignature(key, pull, e));
}

/**
 * The reviews page (`/reports`, every repository's recent reviews) signs `reviews:` and
 * the expiry: no PR's message has that shape (theirs always hold a `/`), so a PR's link
 * never opens the page, nor the page's link a PR's report.
 */
function reviewsSignature(key: string, expires: number): string {
  return createHmac('sha256', key).update(`reviews:${expires}`, 'utf8').digest('hex');
}

export const REVIEWS_PATH = '/reports';

/** The reviews page's URL under publicUrl, valid until expiresAt (to the second). */
export function signReviewsUrl(publicUrl: string, key: string, expiresAt: Date): string {
  return signedUrl(publicUrl, REVIEWS_PATH, expiresAt, (e) => reviewsSignature(key, e));
}

/** verifyReportSignature for the reviews page. */
export function verifyReviewsSignature(
  key: string,
  expires: number,
  sig: string,
  now: Date,
): boolean {
  return signatureHolds(sig, expires, now, (e) => reviewsSignature(key, e));
}

/** `path` under publicUrl with its expiry and the signature `sign` makes of it. */
function signedUrl(
  publicUrl: string,
  path: string,
  expiresAt: Date,
  sign: (expires: number) => string,
): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${publicUrl.replace(/\/+$/, '')}${path}?expires=${expires}&sig=${sign(expires)}`;
}

/**
 * Whether `sig` is what `sign` makes of `expires` (seconds since the epoch), still ahead of
 * now. Compared in constant time; only the length, which is public, is not.
 */
function signatureHolds(
  sig: string,
  expires: number,
  now: Date,
  sign: (expires: number) => string,
): boolean {
  if (!Number.isSafeInteger(expires) || expires * 1000 <= now.getTime()) return false;
  const given = Buffer.from(sig.toLowerCase(), 'utf8');
  const expected = Buffer.from(sign(expires), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
