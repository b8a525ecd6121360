import { describe, expect, it } from 'vitest';
import type { ResourceChange } from '../../../src/model/change.js';
import { renderMarkdown } from '../../../src/report/markdown.js';
import {
  analysis,
  change,
  clusterSummary,
  finding,
  helmRelease,
  kustomization,
} from './analysis-builders.js';
import { expectBalanced, markdownStructure } from './markdown-structure.js';

/**
 * A diff of `count` numbered lines, each line `+  line-<n>: <padding>`; `seed` makes two
 * diffs different (the same change in two objects would be shown once).
 */
function longDiff(count: number, width = 40, seed = ''): string {
  const lines = Array.from(
    { length: count },
    (_, i) => `+  line-${i}: ${'x'.repeat(width)}${seed}`,
  );
  return `@@ -0,0 +1,${count} @@\n${lines.join('\n')}\n`;
}

function positions(text: string, needles: string[]): number[] {
  return needles.map((needle) => {
    const at = text.indexOf(needle);
    expect(at, needle).toBeGreaterThanOrEqual(0);
    return at;
  });
}

describe('renderMarkdown', () => {
  it('opens with the verdict badge and headline, then findings, counts, images and errors', () => {
    const markdown = renderMarkdown(
      analysis({
        changes: [change({ name: 'web' })],
        findings: [finding({ level: 'danger', message: 'Deletes data' })],
        clusters: [
          clusterSummary({
            images: [{ repository: 'docker.io/library/nginx', from: '1.25', to: '1.26' }],
            errorsIntroduced: [{ producer: kustomization('broken'), message: 'build failed' }],
            errorsFixed: [{ producer: kustomization('mended'), message: 'was broken' }],
          }),
        ],
      }),
    );
    expect(markdown.startsWith('### fluxlens: **DANGER** · Scales the web Deployment\n')).toBe(
      true,
    );
    const order = positions(markdown, [
      '#### Findings',
      '**1** changed',
      '#### Image changes',
      '`docker.io/library/nginx`: `1.25` → `1.26`',
      '#### Render errors introduced',
      '`Kustomization/flux-system/broken`: build failed',
      '#### Render errors fixed',
      '`Kustomization/flux-system/mended`: was broken',
      '#### Changes',
    ]);
    expect(order.slice(2)).toEqual([...order.slice(2)].sort((a, b) => a - b));
    expect(order[0]).toBeLessThan(order[2]!);
  });

  it('names the resource, producer and source line of each finding, danger first', () => {
    const markdown = renderMarkdown(
      analysis({
        findings: [
          finding({ level: 'info', message: 'Adds a label' }),
          finding({
            level: 'danger',
            message: 'Deletes a PersistentVolumeClaim',
            resource: { kind: 'PersistentVolumeClaim', namespace: 'db', name: 'data' },
            producer: kustomization('databases'),
            file: 'infra/db/pvc.yaml',
            line: 12,
            rule: 'pvc-delete',
          }),
          finding({ level: 'caution', message: 'Scales down' }),
        ],
      }),
    );
    expect(markdown).toContain(
      '- **DANGER** `PersistentVolumeClaim/db/data` from `Kustomization/flux-system/databases` ' +
        'at `infra/db/pvc.yaml:12`: Deletes a PersistentVolumeClaim (`pvc-delete`)',
    );
    const [danger, caution, info] = positions(markdown, [
      '**DANGER** `',
      '**CAUTION**',
      '**INFO**',
    ]);
    expect(danger).toBeLessThan(caution!);
    expect(caution).toBeLessThan(info!);
  });

  it('shows producers with danger findings first, then caution, then the rest', () => {
    const markdown = renderMarkdown(
      analysis({
        changes: [
          change({ name: 'quiet', producer: kustomization('a-quiet') }),
          change({ name: 'scaled', producer: kustomization('b-caution') }),
          change({ name: 'pvc', kind: 'PersistentVolumeClaim', producer: helmRelease('z-danger') }),
        ],
        findings: [
          finding({
            level: 'caution',
            message: 'Scales',
            resource: { kind: 'Deployment', namespace: 'apps', name: 'scaled' },
          }),
          finding({
            level: 'danger',
            message: 'Deletes',
            resource: { kind: 'PersistentVolumeClaim', namespace: 'apps', name: 'pvc' },
          }),
        ],
      }),
    );
    const order = positions(markdown, [
      '<b>DANGER</b> <code>HelmRelease/apps/z-danger</code>',
      '<b>CAUTION</b> <code>Kustomization/flux-system/b-caution</code>',
      '<code>Kustomization/flux-system/a-quiet</code>',
    ]);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expectBalanced(markdown);
  });

  it('shows the riskiest cluster first', () => {
    const markdown = renderMarkdown(
      analysis({
        clusters: [clusterSummary({ name: 'alpha' }), clusterSummary({ name: 'beta' })],
        changes: [change({ name: 'a', cluster: 'alpha' }), change({ name: 'b', cluster: 'beta' })],
        findings: [
          finding({
            level: 'danger',
            cluster: 'beta',
            message: 'x',
            resource: { kind: 'Deployment', namespace: 'apps', name: 'b' },
          }),
        ],
      }),
    );
    const [beta, alpha] = positions(markdown, [
      'Cluster <code>beta</code>',
      'Cluster <code>alpha</code>',
    ]);
    expect(beta).toBeLessThan(alpha!);
    expect(markdown).toContain('| `alpha` | 0 | 0 | 0 | 0 | 0 |');
  });

  it('cuts a long diff after a whole line and says how many lines are left out', () => {
    const markdown = renderMarkdown(
      analysis({ changes: [change({ name: 'big', diff: longDiff(3000) })] }),
    );
    const match = /\n\+ {2}line-(\d+): x+\n… (\d+) more lines\n```\n/.exec(markdown);
    expect(match).not.toBeNull();
    // Shown: the hunk header and lines 0..last; with the lines left out, all 3001 lines.
    const shown = 1 + Number(match![1]) + 1;
    expect(shown + Number(match![2])).toBe(3001);
    expect(markdown).toContain('_1 diff shortened._');
    expectBalanced(markdown);
  });

  it('spends a small budget on the riskiest objects and counts the rest in the footer', () => {
    const changes: ResourceChange[] = Array.from({ length: 30 }, (_, i) =>
      change({
        name: `app-${i}`,
        producer: kustomization(`p${i % 3}`),
        diff: longDiff(20, 40, String(i)),
      }),
    );
    const markdown = renderMarkdown(
      analysis({
        changes,
        findings: [
          finding({
            level: 'danger',
            message: 'risky',
            resource: { kind: 'Deployment', namespace: 'apps', name: 'app-29' },
          }),
        ],
        reportUrl: 'https://fluxlens.example/r/42',
      }),
      { maxChars: 6000 },
    );
    expect(markdown.length).toBeLessThanOrEqual(6000);
    expectBalanced(markdown);
    expect(
      markdown.indexOf('`Deployment/apps/app-29`', markdown.indexOf('#### Changes')),
    ).toBeGreaterThan(0);
    const footer =
      /_(\d+) objects in (\d+) producers not shown(; \d+ diffs? shortened)?\._ \[Full report\]\(<https:\/\/fluxlens\.example\/r\/42>\)\n$/.exec(
        markdown,
      );
    expect(footer).not.toBeNull();
    const shown = (markdown.match(/^\*\*changed\*\* /gm) ?? []).length;
    expect(shown + Number(footer![1])).toBe(30);
  });

  it('ends with what was left out and no link when there is no report URL', () => {
    const changes = Array.from({ length: 10 }, (_, i) =>
      change({ name: `app-${i}`, diff: longDiff(50, 40, String(i)) }),
    );
    const markdown = renderMarkdown(analysis({ changes }), { maxChars: 4000 });
    expect(markdown).toMatch(/_\d+ objects in 1 producer not shown(; \d+ diffs? shortened)?\._\n$/);
    expect(markdown).not.toContain('Full report');
  });

  it('links the full report even when nothing was left out', () => {
    const markdown = renderMarkdown(
      analysis({ changes: [change({ name: 'web' })], reportUrl: 'https://x.example/r/1' }),
    );
    expect(markdown.endsWith('---\n\n[Full report](<https://x.example/r/1>)\n')).toBe(true);
    expect(markdown).not.toContain('not shown');
  });

  it('keeps every danger finding and counts the others when findings alone overflow', () => {
    const long = 'word '.repeat(150).trim();
    const findings = [
      ...Array.from({ length: 10 }, (_, i) =>
        finding({ level: 'danger', message: `danger ${i} ${long}` }),
      ),
      ...Array.from({ length: 200 }, (_, i) =>
        finding({ level: 'caution', message: `caution ${i} ${long}` }),
      ),
      ...Array.from({ length: 50 }, (_, i) =>
        finding({ level: 'info', message: `info ${i} ${long}` }),
      ),
    ];
    const markdown = renderMarkdown(analysis({ findings, changes: [change({ name: 'web' })] }));
    expect(markdown.length).toBeLessThanOrEqual(65536);
    for (let i = 0; i < 10; i += 1) expect(markdown).toContain(`danger ${i} ${long}`);
    expect(markdown).not.toContain('caution 0 ');
    expect(markdown).toContain('- … and 200 caution, 50 info findings not shown');
  });

  it('escapes backticks, pipes and HTML in names and messages', () => {
    const markdown = renderMarkdown(
      analysis({
        clusters: [clusterSummary({ name: 'a|b' }), clusterSummary({ name: '<c>' })],
        changes: [change({ name: 'we`b', cluster: 'a|b', producer: kustomization('<img src=x>') })],
        findings: [
          finding({ level: 'danger', cluster: 'a|b', message: 'Opens <script> to *all* | `x`' }),
        ],
      }),
    );
    expect(markdown).toContain('``Deployment/apps/we`b``');
    expect(markdown).toContain('Opens &lt;script&gt; to \\*all\\* \\| \\`x\\`');
    expect(markdown).toContain('<code>Kustomization/flux-system/&lt;img src=x&gt;</code>');
    expect(markdown).toContain('| `a\\|b` |');
    expect(markdown).not.toContain('<img');
    expect(markdown).not.toContain('<script');
  });

  it('fences a diff containing backticks with a longer fence', () => {
    const diff = '@@ -1,2 +1,2 @@\n-text: |\n+  ````\n```\n';
    const markdown = renderMarkdown(analysis({ changes: [change({ name: 'web', diff })] }));
    expect(markdown).toContain('`````diff\n@@ -1,2 +1,2 @@\n-text: |\n+  ````\n```\n`````\n');
    expect(markdownStructure(markdown).fences.get(5)).toEqual([1, 1]);
    expectBalanced(markdown);
  });

  it('says a moved object kept its content instead of printing an empty fence', () => {
    const markdown = renderMarkdown(
      analysis({
        changes: [
          change({
            name: 'web',
            status: 'moved',
            contentChanged: false,
            diff: '',
            previousProducer: kustomization('old'),
          }),
        ],
      }),
    );
    expect(markdown).toContain(
      '**moved** `Deployment/apps/web` from `Kustomization/flux-system/old`\n\n_No content change._',
    );
    expect(markdown).not.toContain('```');
  });

  it('marks new and removed images', () => {
    const markdown = renderMarkdown(
      analysis({
        clusters: [
          clusterSummary({
            images: [
              { repository: 'ghcr.io/a', to: 'v2' },
              { repository: 'ghcr.io/b', from: 'v1' },
            ],
          }),
        ],
      }),
    );
    expect(markdown).toContain('- `ghcr.io/a`: new → `v2`\n- `ghcr.io/b`: `v1` → removed\n');
  });

  it('falls back to the badge and a cut headline when the budget is below the verdict lines', () => {
    const result = analysis({ findings: [finding({ level: 'danger', message: 'x' })] });
    result.verdict.headline = 'A very long headline '.repeat(20);
    const markdown = renderMarkdown(result, { maxChars: 120 });
    expect(markdown.length).toBeLessThanOrEqual(120);
    expect(markdown.startsWith('### fluxlens: **DANGER** · A very long')).toBe(true);
  });

  it('shows OK and no changes section for an empty analysis', () => {
    const markdown = renderMarkdown(
      analysis({
        verdict: {
          level: 'none',
          headline: 'No changes',
          routine: false,
          counts: { info: 0, caution: 0, danger: 0 },
        },
      }),
    );
    expect(markdown).toBe(
      '### fluxlens: **OK** · No changes\n\n' +
        '`main` (`aaaaaaaaaaaa`) → `feature` (`bbbbbbbbbbbb`) · **0** added · **0** removed · ' +
        '**0** changed · **0** moved · **0** findings\n',
    );
  });
});
