/**
 * A feature-flag patch across a fleet, end to end with real git, kustomize and helm: the
 * same HelmRelease change in twelve apps is one group in the PR comment with one diff,
 * the JSON keeps every object, and a Kustomization broken before and after the PR is
 * listed once in the HTML page, after the changes, and folded in the comment.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { analyzeBranches } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  repositoryChartRelease,
  yamlStream as yaml,
  type TestRepo,
} from '../support/repo.js';

const APPS = Array.from({ length: 12 }, (_, i) => `app-${String(i).padStart(2, '0')}`);

let repo: TestRepo;
let result: AnalysisResult;

function releases(strategy: boolean): Record<string, string> {
  const files: Record<string, string> = {};
  for (const app of APPS) {
    const install = {
      remediation: { retries: 3 },
      ...(strategy && { strategy: { name: 'RetryOnFailure' } }),
    };
    files[`apps/${app}/release.yaml`] = yaml(
      repositoryChartRelease(app, app, './charts/web', {
        install,
        values: { greeting: `hello from ${app}` },
      }),
    );
  }
  return files;
}

beforeAll(async () => {
  repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yaml(
        ...APPS.map((a) => fluxKustomization(a, `./apps/${a}`)),
        fluxKustomization('broken', './not-there'),
      ),
      'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
      'charts/web/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\ndata:\n  greeting: {{ .Values.greeting | quote }}\n',
      ...releases(true),
    },
    { git: true },
  );
  repo.commit('base');
  execFileSync('git', ['-C', repo.dir, 'checkout', '-q', '-b', 'pr'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
  repo.write(releases(false));
  repo.commit('drop the install strategy');
  result = await analyzeBranches(repo.dir, 'main', 'pr');
}, 240_000);

afterAll(() => repo?.remove());

describe('the same patch in twelve HelmReleases', () => {
  it('keeps one change per object in the JSON', () => {
    expectValidAnalysis(JSON.parse(renderJson(result)));
    expect(result.changes.map((c) => `${c.kind}/${c.name}`)).toEqual(
      APPS.map((a) => `HelmRelease/${a}`),
    );
  });

  it('is one group with every release and one diff in the PR comment', () => {
    const markdown = renderMarkdown(result);
    expect(markdown).toContain(
      '<summary>The same change in 12 HelmReleases: − <code>spec.install.strategy</code></summary>',
    );
    for (const app of APPS) {
      expect(markdown).toContain(
        `- \`HelmRelease/${app}/${app}\` from \`Kustomization/flux-system/${app}\``,
      );
    }
    expect(markdown.match(/```diff/g)).toHaveLength(1);
  });

  it('lists the Kustomization that fails on both sides once in the HTML, after the changes', () => {
    const html = renderHtml(result);
    const errors = html.indexOf('id="errors-title"');
    expect(errors).toBeGreaterThan(html.indexOf('id="changes-title"'));
    expect(html.slice(errors).match(/Kustomization\/flux-system\/broken</g)).toHaveLength(1);
    expect(html).toContain(
      'Kustomization/flux-system/broken</strong> in cluster clusters/prod, at base and head',
    );
  });

  it('folds that error in the PR comment', () => {
    expect(renderMarkdown(result)).toMatch(
      /<details><summary>1 render error at head also failed at base<\/summary>\n\n- `Kustomization\/flux-system\/broken` \(`clusters\/prod\/apps.yaml`\): path 'not-there' not found\n/,
    );
  });
});
