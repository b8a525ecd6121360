/**
 * One owner/repo#number on two forges is two pull requests: their keys in the queue and
 * the result store, and their signed report links, never meet. GitHub's stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { pullKey } from '../../src/queue/pull-key.js';
import { reportPath, signReportUrl, verifyReportSignature } from '../../src/report-link.js';

const github = { owner: 'home-ops', repo: 'cluster', pullNumber: 4 };
const gitea = { forge: 'gitea' as const, ...github };
const KEY = 'report-signing-key-for-tests-51be';
const NOW = new Date('2024-05-01T12:00:00Z');
const LATER = new Date('2024-05-02T12:00:00Z');

describe('a pull request on another forge', () => {
  it('has a key of its own, while GitHub keeps the key it had', () => {
    expect(pullKey(github)).toBe('home-ops~cluster~4');
    expect(pullKey({ ...github, forge: 'github' })).toBe('home-ops~cluster~4');
    expect(pullKey(gitea)).toBe('gitea~home-ops~cluster~4');
  });

  it('has a report path of its own, named by its forge first', () => {
    expect(reportPath(github)).toBe('/reports/home-ops/cluster/pulls/4');
    expect(reportPath(gitea)).toBe('/reports/gitea/home-ops/cluster/pulls/4');
  });

  it("signs links that open its report and not GitHub's of the same name", () => {
    const url = new URL(signReportUrl('https://fluxlens.example.com', KEY, gitea, LATER));
    const expires = Number(url.searchParams.get('expires'));
    const sig = url.searchParams.get('sig') ?? '';
    expect(verifyReportSignature(KEY, gitea, expires, sig, NOW)).toBe(true);
    expect(verifyReportSignature(KEY, github, expires, sig, NOW)).toBe(false);
  });
});
