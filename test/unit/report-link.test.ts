import { describe, expect, it } from 'vitest';
import {
  reportPath,
  signReportUrl,
  signReviewsUrl,
  verifyReportSignature,
  verifyReviewsSignature,
} from '../../src/report-link.js';

const KEY = 'report-signing-key-for-tests-51be';
const PULL = { owner: 'flux-org', repo: 'fleet', pullNumber: 7 };
const NOW = new Date('2024-05-01T12:00:00Z');
const IN_AN_HOUR = new Date(NOW.getTime() + 3600_000);

interface Link {
  expires: number;
  sig: string;
}

/** The expiry and signature a signed URL carries. */
function linkOf(url: string): Link {
  const params = new URL(url).searchParams;
  return { expires: Number(params.get('expires')), sig: params.get('sig') ?? '' };
}

describe('signed report links', () => {
  it('point at the report under the public URL and expire at the given second', () => {
    const url = signReportUrl('https://fluxlens.example.com//', KEY, PULL, IN_AN_HOUR);
    expect(url).toMatch(
      /^https:\/\/fluxlens\.example\.com\/reports\/flux-org\/fleet\/pulls\/7\?expires=1714568400&sig=[0-9a-f]{64}$/,
    );
  });

  it('are the same link for the same inputs', () => {
    const sign = () => signReportUrl('https://fluxlens.example.com', KEY, PULL, IN_AN_HOUR);
    expect(sign()).toBe(sign());
  });

  it('verify for the pull request they were signed for until they expire', () => {
    const { expires, sig } = linkOf(signReportUrl('https://x.test', KEY, PULL, IN_AN_HOUR));
    expect(verifyReportSignature(KEY, PULL, expires, sig, NOW)).toBe(true);
    expect(verifyReportSignature(KEY, PULL, expires, sig.toUpperCase(), NOW)).toBe(true);
    const lastSecond = new Date(IN_AN_HOUR.getTime() - 1000);
    expect(verifyReportSignature(KEY, PULL, expires, sig, lastSecond)).toBe(true);
  });

  it('do not verify once expired', () => {
    const { expires, sig } = linkOf(signReportUrl('https://x.test', KEY, PULL, IN_AN_HOUR));
    expect(verifyReportSignature(KEY, PULL, expires, sig, IN_AN_HOUR)).toBe(false);
    const earlier = linkOf(signReportUrl('https://x.test', KEY, PULL, new Date(NOW.getTime() - 1)));
    expect(verifyReportSignature(KEY, PULL, earlier.expires, earlier.sig, NOW)).toBe(false);
  });

  it.each([
    ['another pull number', { ...PULL, pullNumber: 8 }],
    ['another repository', { ...PULL, repo: 'fleet-infra' }],
    ['another owner', { ...PULL, owner: 'other-org' }],
  ])('do not verify for %s', (_name, other) => {
    const { expires, sig } = linkOf(signReportUrl('https://x.test', KEY, PULL, IN_AN_HOUR));
    expect(verifyReportSignature(KEY, other, expires, sig, NOW)).toBe(false);
  });

  it.each([
    ['a later expiry', (link: Link) => ({ ...link, expires: 1914568400 })],
    ['a changed signature', (link: Link) => ({ ...link, sig: flip(link.sig) })],
    ['a truncated signature', (link: Link) => ({ ...link, sig: link.sig.slice(0, -2) })],
    ['an empty signature', (link: Link) => ({ ...link, sig: '' })],
    ['a fractional expiry', (link: Link) => ({ ...link, expires: link.expires + 0.5 })],
  ])('do not verify when tampered to %s', (_name, tamper) => {
    const link = tamper(linkOf(signReportUrl('https://x.test', KEY, PULL, IN_AN_HOUR)));
    expect(verifyReportSignature(KEY, PULL, link.expires, link.sig, NOW)).toBe(false);
  });

  it('do not verify with another key', () => {
    const { expires, sig } = linkOf(signReportUrl('https://x.test', KEY, PULL, IN_AN_HOUR));
    expect(verifyReportSignature('some-other-key', PULL, expires, sig, NOW)).toBe(false);
  });

  it('keep names apart that would read the same joined by a slash', () => {
    const one = linkOf(
      signReportUrl('https://x.test', KEY, { ...PULL, owner: 'a/b', repo: 'c' }, IN_AN_HOUR),
    );
    const two = { owner: 'a', repo: 'b/c', pullNumber: PULL.pullNumber };
    expect(verifyReportSignature(KEY, two, one.expires, one.sig, NOW)).toBe(false);
    expect(reportPath({ ...PULL, owner: 'a/b', repo: 'c' })).toBe('/reports/a%2Fb/c/pulls/7');
  });
});

/** The signature with its first hex digit changed. */
function flip(sig: string): string {
  return `${sig.startsWith('0') ? '1' : '0'}${sig.slice(1)}`;
}

describe('signed links to the reviews page', () => {
  const page = () => linkOf(signReviewsUrl('https://fluxlens.example.com', KEY, IN_AN_HOUR));

  it('verify until they expire, and not with another key', () => {
    const { expires, sig } = page();
    expect(verifyReviewsSignature(KEY, expires, sig, NOW)).toBe(true);
    expect(verifyReviewsSignature(KEY, expires, sig, IN_AN_HOUR)).toBe(false);
    expect(verifyReviewsSignature('another-key', expires, sig, NOW)).toBe(false);
  });

  it("never open a PR's report, nor a PR's link the page", () => {
    const { expires, sig } = page();
    expect(verifyReportSignature(KEY, PULL, expires, sig, NOW)).toBe(false);
    const report = linkOf(signReportUrl('https://fluxlens.example.com', KEY, PULL, IN_AN_HOUR));
    expect(verifyReviewsSignature(KEY, report.expires, report.sig, NOW)).toBe(false);
  });
});
