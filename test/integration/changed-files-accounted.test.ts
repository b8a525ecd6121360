/**
 * Every changed file accounted for (DESIGN.md): over generated Flux repositories (a cluster
 * folder applied by gotk-sync.yaml, by placeholders or by nothing, a few Kustomizations,
 * plain manifests, a shared base, files nobody reads, CI files, sometimes a .sourceignore)
 * and random edits to them, the real analysis (real git and kustomize) puts each changed
 * file in exactly one list: read, left out by an ignore rule, or read by nothing rendered;
 * and never says OK while the last is not empty. Where the generator knows which list a
 * file belongs in, the test checks that too.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { analyzeBranches } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  repositoryChartRelease,
  type RepoFiles,
  type TestRepo,
  yamlStream as yaml,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

type Expected = 'read' | 'excluded' | 'unread';

interface Shape {
  applied: 'gotk-sync' | 'placeholders' | 'nothing';
  apps: number;
  /** Whether the apps share a base in apps/base (reached by `../base`). */
  base: boolean;
  /** A .sourceignore that leaves docs/ out (and so turns the default exclusions off). */
  sourceignore: boolean;
}

function configMap(name: string, namespace: string, value: string): string {
  return yaml({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace },
    data: { value },
  });
}

/** The repository, and which list each of its files belongs in when a PR changes it. */
function generate(shape: Shape): { files: RepoFiles; expected: Map<string, Expected> } {
  const files: RepoFiles = {};
  const expected = new Map<string, Expected>();
  const put = (path: string, text: string, list: Expected) => {
    files[path] = text;
    expected.set(path, list);
  };
  const kustomization = (resources: string[]) =>
    `apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n${resources.map((r) => `  - ${r}\n`).join('')}`;
  // Placeholders make nothing: their kustomization's patches would act on nothing rendered.
  const bootstrapFiles = shape.applied === 'gotk-sync' ? 'read' : 'unread';
  if (shape.applied === 'gotk-sync') {
    put('clusters/prod/flux-system/gotk-sync.yaml', bootstrap('./clusters/prod'), 'read');
  } else if (shape.applied === 'placeholders') {
    put('clusters/prod/flux-system/gotk-sync.yaml', '# written by flux bootstrap\n', 'unread');
  }
  if (shape.applied !== 'nothing') {
    const file = kustomization(['gotk-sync.yaml']);
    put('clusters/prod/flux-system/kustomization.yaml', file, bootstrapFiles);
  }
  if (shape.base) {
    put('apps/base/kustomization.yaml', kustomization(['shared.yaml']), 'read');
    put('apps/base/shared.yaml', configMap('shared', 'apps', 'one'), 'read');
  }
  for (let i = 0; i < shape.apps; i++) {
    const app = `app${i}`;
    put(`clusters/prod/${app}.yaml`, yaml(fluxKustomization(app, `./apps/${app}`)), 'read');
    const resources = ['settings.yaml', ...(shape.base ? ['../base'] : [])];
    put(`apps/${app}/kustomization.yaml`, kustomization(resources), 'read');
    put(`apps/${app}/settings.yaml`, configMap(app, app, 'one'), 'read');
    // In a folder a build visits, but its kustomization does not list it.
    put(`apps/${app}/unlisted.yaml`, configMap(`${app}-old`, app, 'one'), 'unread');
  }
  put('orphan/settings.yaml', configMap('orphan', 'default', 'one'), 'unread');
  put('.github/workflows/ci.yaml', 'on: push\n', shape.sourceignore ? 'unread' : 'excluded');
  put('docs/notes.md', 'notes\n', shape.sourceignore ? 'excluded' : 'unread');
  if (shape.sourceignore) put('.sourceignore', 'docs/\n', 'unread');
  return { files, expected };
}

const shapes = fc.record({
  applied: fc.constantFrom('gotk-sync' as const, 'placeholders' as const, 'nothing' as const),
  apps: fc.integer({ min: 1, max: 3 }),
  base: fc.boolean(),
  sourceignore: fc.boolean(),
});

/** Which files the PR edits (by index into the sorted paths), and which it adds. */
const edits = fc.record({
  edited: fc.uniqueArray(fc.nat({ max: 40 }), { minLength: 0, maxLength: 4 }),
  added: fc.subarray(['orphan/new.yaml', 'apps/app0/new.yaml', 'docs/more.md']),
});

function check(result: AnalysisResult, changed: string[], expected: Map<string, Expected>): void {
  const files = result.files;
  expect(files).toBeDefined();
  if (!files) return;
  const lists: Array<[Expected, string[]]> = [
    ['read', files.read],
    ['excluded', files.excluded.map((e) => e.path)],
    ['unread', files.unread],
  ];
  for (const path of changed) {
    const found = lists.filter(([, paths]) => paths.includes(path)).map(([name]) => name);
    expect(found, path).toHaveLength(1);
    const known = expected.get(path);
    if (known !== undefined) expect(found[0], path).toBe(known);
  }
  const listed = lists.flatMap(([, paths]) => paths).sort();
  expect(listed).toEqual([...changed].sort());
  if (files.unread.length > 0) {
    expect(result.verdict.level).not.toBe('none');
    expect(result.verdict.routine).toBe(false);
    expect(result.verdict.headline).toContain('read by nothing fluxlens renders');
    expect(renderMarkdown(result)).toContain('#### Read by nothing fluxlens renders');
  }
  expectValidAnalysis(JSON.parse(renderJson(result)));
}

describe('every file a pull request changes', () => {
  it('is read, left out by an ignore rule, or listed as read by nothing, and never OK while listed', async () => {
    await fc.assert(
      fc.asyncProperty(shapes, edits, async (shape, edit) => {
        const { files, expected } = generate(shape);
        const repo = makeRepo(files, { git: true });
        repos.push(repo);
        const base = repo.commit('base');
        const paths = Object.keys(files).sort();
        const changed = new Set<string>();
        const more: RepoFiles = {};
        for (const index of edit.edited) {
          const path = paths[index % paths.length]!;
          more[path] = `${files[path] as string}# edited\n`;
          changed.add(path);
        }
        for (const path of edit.added) {
          more[path] = configMap('added', 'default', 'two');
          changed.add(path);
        }
        // A new file in a folder nothing lists is read by nothing; in docs/ .sourceignore may leave it out.
        expected.set('orphan/new.yaml', 'unread');
        expected.set('apps/app0/new.yaml', 'unread');
        expected.set('docs/more.md', shape.sourceignore ? 'excluded' : 'unread');
        repo.write(more);
        const head = repo.commit('edit');
        const result = await analyzeBranches(repo.dir, base, head);
        check(result, [...changed], expected);
      }),
      { numRuns: 6, seed: 21, endOnFailure: true },
    );
  });
});

describe('a chart folder of the repository', () => {
  it('is read whole by the HelmRelease that installs it, with its values files', async () => {
    const repo = makeRepo(
      {
        'clusters/prod/flux-system/gotk-sync.yaml': bootstrap('./clusters/prod'),
        'clusters/prod/apps.yaml': yaml(fluxKustomization('apps', './apps')),
        'apps/web.yaml': yaml(
          repositoryChartRelease('web', 'apps', './charts/web', {
            chart: {
              spec: {
                chart: './charts/web',
                valuesFiles: ['values/web.yaml'],
                sourceRef: { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' },
              },
            },
          }),
        ),
        'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
        'charts/web/templates/cm.yaml':
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  size: "{{ .Values.size }}"\n',
        'charts/web/values.yaml': 'size: 1\n',
        'values/web.yaml': 'size: 2\n',
        'charts/other/Chart.yaml': 'apiVersion: v2\nname: other\nversion: 1.0.0\n',
      },
      { git: true },
    );
    repos.push(repo);
    const base = repo.commit('base');
    repo.write({
      'charts/web/templates/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata:\n  size: "{{ .Values.size }}0"\n',
      'charts/web/README.md': 'web\n',
      'values/web.yaml': 'size: 3\n',
      'charts/other/Chart.yaml': 'apiVersion: v2\nname: other\nversion: 1.0.1\n',
    });
    const head = repo.commit('chart');
    const result = await analyzeBranches(repo.dir, base, head);
    expect(result.errors).toEqual([]);
    expect(result.files).toEqual({
      read: ['charts/web/README.md', 'charts/web/templates/cm.yaml', 'values/web.yaml'],
      excluded: [],
      unread: ['charts/other/Chart.yaml'],
    });
    expect(result.verdict.headline).toMatch(
      /^1 changed file is read by nothing fluxlens renders; /,
    );
  });
});
