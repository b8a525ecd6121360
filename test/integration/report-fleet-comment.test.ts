/**
 * The PR comment of a one-line image bump in the benchmark's fleet of 150 Kustomizations,
 * reviewed for real (git, kustomize, helm, offline): sixty HelmReleases cannot have their
 * chart at either revision, and the comment still says what the PR does first and folds
 * those sixty into one line by cause, in under 10,000 characters.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { generateFleet, type Fleet } from '../../bench/render/generate-fleet.js';
import { writeFleet } from '../../bench/render/write-fleet.js';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { renderCheckRun } from '../../src/report/check-run.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { analyzeBranches } from '../support/render.js';
import { scratchDirs } from '../support/scratch-dirs.js';

const { tempDir } = scratchDirs();

let fleet: Fleet;
let result: AnalysisResult;

beforeAll(async () => {
  fleet = generateFleet({
    seed: 1,
    kustomizations: 150,
    releases: 60,
    chartRepositoryUrl: 'https://charts.example.com/stable',
  });
  const dir = tempDir('fluxlens-fleet-comment-');
  writeFleet(dir, fleet);
  result = await analyzeBranches(dir, 'main', 'pr/one-file');
}, 240_000);

describe('a one-line image bump in a fleet of 150 Kustomizations', () => {
  it('fails the same sixty releases at both revisions, for want of their charts', () => {
    expectValidAnalysis(JSON.parse(renderJson(result)));
    const head = result.errors.filter((e) => e.side === 'head');
    expect(head).toHaveLength(60);
    expect(head.every((e) => e.code === 'chart-unavailable' && !e.introduced)).toBe(true);
    expect(result.changes.map((c) => `${c.kind}/${c.name}`)).toEqual([
      `Deployment/${fleet.facts.oneFile.split('/')[2]}`,
    ]);
  });

  it('is a comment under 10,000 characters with the bump before the folded errors', () => {
    const markdown = renderMarkdown(result);
    expect(markdown.length).toBeLessThan(10_000);
    const [image] = result.clusters[0]?.images ?? [];
    expect(image?.to).toBeDefined();
    const folded = markdown.indexOf(
      '<details><summary>60 render errors at head also failed at base</summary>',
    );
    const order = [
      markdown.indexOf('#### Findings'),
      markdown.indexOf(`→ \`${image?.to}\``),
      markdown.indexOf(`+          image: ${image?.repository}:${image?.to}`),
      folded,
    ];
    expect(order.every((at) => at >= 0)).toBe(true);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(markdown.slice(folded)).toMatch(
      /^<details><summary>60 render errors at head also failed at base<\/summary>\n\n- \*\*60 HelmReleases\*\*: charts from HelmRepository\/flux-system\/bench-charts not in the offline cache: (`HelmRelease\/[^`]+`, ){2}`HelmRelease\/[^`]+` and 57 more\n/,
    );
  });

  it('keeps the check-run summary as short', () => {
    const { summary } = renderCheckRun(result, 'danger');
    expect(summary.length).toBeLessThan(10_000);
    expect(summary).toContain('<details><summary>60 render errors at head also failed at base');
  });
});
