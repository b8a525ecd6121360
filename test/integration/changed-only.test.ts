/**
 * Changed-only rendering: the head of a review renders only the producers whose content
 * key differs from the base's (what they read changed, or they appear), and takes the rest
 * from the base's render. What comes out must be what rendering both sides in full gives,
 * object for object, whatever the edit: a property test applies random edits to a
 * generated repository and compares.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { RenderedCluster } from '../../src/model/render.js';
import { RenderMemo } from '../../src/render/index.js';
import {
  analyzeBranches,
  builtinEngine,
  testHelmSettings,
  testMachine,
  withoutTimings,
} from '../support/render.js';
import { makeRepo, type TestRepo } from '../support/repo.js';
import { EDITS, ENTRY, fleet, type Edit } from './changed-only-fleet.js';

const repos: TestRepo[] = [];
const folders: string[] = [];
afterAll(() => {
  repos.forEach((r) => r.remove());
  folders.forEach((d) => rmSync(d, { recursive: true, force: true }));
});

/** The fleet at base, committed, and the edited fleet at head, committed on top. */
function twoRevisions(edit: Edit): { repo: TestRepo; base: string; head: string } {
  const files = fleet();
  const repo = makeRepo(files, { git: true });
  repos.push(repo);
  const base = repo.commit('base');
  const edited = fleet(edit);
  for (const path of Object.keys(files)) {
    if (!(path in edited)) rmSync(join(repo.dir, path));
  }
  repo.write({ ...edited, 'README.md': `edited: ${JSON.stringify(edit)}\n` });
  return { repo, base, head: repo.commit('head') };
}

const engine = builtinEngine({ helm: { ...testHelmSettings, enabled: true } });

function render(repo: TestRepo, rev: string, memo?: RenderMemo): Promise<RenderedCluster> {
  return engine.render({
    repoDir: repo.dir,
    rev,
    entry: ENTRY,
    sources: [],
    ...(memo ? { memo } : {}),
  });
}

/** Removes the analyses kept in a render cache folder, as an eviction would. */
function forgetAnalyses(dir: string): void {
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.json')) continue;
    const file = join(dir, name);
    if (readFileSync(file, 'utf8').includes('"holds":')) rmSync(file);
  }
}

/** Producers in the fleet at base: flux-system, apps, a to e, and the web release. */
const BASE_PRODUCERS = 8;

/**
 * Both sides rendered in full, and changed-only; the head's producers built and taken as
 * unchanged in the changed-only render.
 */
async function review(edit: Edit) {
  const { repo, base, head } = twoRevisions(edit);
  const full = { base: await render(repo, base), head: await render(repo, head) };
  const memo = new RenderMemo();
  const changed = { base: await render(repo, base, memo) };
  const builtAtBase = memo.counts.rendered;
  const changedHead = await render(repo, head, memo);
  return {
    full,
    changed: { ...changed, head: changedHead },
    builtAtBase,
    head: { rendered: memo.counts.rendered - builtAtBase, unchanged: memo.counts.unchanged },
  };
}

describe('changed-only rendering', () => {
  it('takes every producer of a head that changed nothing they read from the base', async () => {
    const r = await review({});
    expect(r.builtAtBase).toBe(BASE_PRODUCERS);
    expect(r.head).toEqual({ rendered: 0, unchanged: BASE_PRODUCERS });
    expect(r.changed).toEqual(r.full);
  });

  it('renders again every consumer of a changed shared component, and nothing else', async () => {
    const r = await review({ shared: 'x' });
    expect(r.head).toEqual({ rendered: 3, unchanged: 5 });
    expect(r.changed).toEqual(r.full);
  });

  it('renders again a Kustomization whose substitution source another one renders changed', async () => {
    const r = await review({ appVar: 'x' });
    // a holds the ConfigMap, b substitutes from it.
    expect(r.head).toEqual({ rendered: 2, unchanged: 6 });
    expect(r.changed).toEqual(r.full);
  });

  it("renders again the children whose parent's output now defines them differently", async () => {
    const r = await review({ tier: 'x' });
    // vars.yaml is flux-system's file; apps substitutes it into a to e; web reads none of it.
    expect(r.head).toEqual({ rendered: 7, unchanged: 1 });
    expect(r.changed).toEqual(r.full);
  });

  it('renders again a HelmRelease whose valuesFrom ConfigMap changed, and its chart when its template did', async () => {
    const values = await review({ webValues: 'x' });
    expect(values.head).toEqual({ rendered: 2, unchanged: 6 });
    expect(values.changed).toEqual(values.full);
    const template = await review({ webTemplate: 'x' });
    expect(template.head).toEqual({ rendered: 1, unchanged: 7 });
    expect(template.changed).toEqual(template.full);
  });

  it('renders the producers a head adds, and drops the ones it removes', async () => {
    const r = await review({ addF: 'x', removeE: 'x' });
    // apps (its folder lists the apps) and the new f; e is gone.
    expect(r.head).toEqual({ rendered: 2, unchanged: 6 });
    expect(r.changed).toEqual(r.full);
    expect(r.changed.head.producers.map((p) => p.name)).toContain('f');
    expect(r.changed.head.producers.map((p) => p.name)).not.toContain('e');
  });

  it('gives what rendering both sides in full gives, after any edit (property)', async () => {
    let unchanged = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.constantFrom(...EDITS), fc.constantFrom('x', 'y'), { maxKeys: 3 }),
        async (edit) => {
          const r = await review(edit);
          expect(r.changed.base).toEqual(r.full.base);
          expect(r.changed.head).toEqual(r.full.head);
          unchanged += r.head.unchanged;
        },
      ),
      { numRuns: 6, seed: 20261212 },
    );
    // Equal because the head took producers from the base, not because it never did.
    expect(unchanged).toBeGreaterThan(0);
  });
});

describe('a review with the render cache on', () => {
  it('says how many producers it rendered, read from the cache and took as unchanged, and reviews as a full render does', async () => {
    const { repo, base, head } = twoRevisions({ shared: 'x' });
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-cache-'));
    folders.push(dir);
    const machine = { ...testMachine, renderCache: { dir, maxBytes: 64 * 1024 * 1024 } };
    const changedOnly = await analyzeBranches(repo.dir, base, head, { machine });
    const full = await analyzeBranches(repo.dir, base, head);
    expect(changedOnly.timings).toMatchObject({
      'producers-rendered': BASE_PRODUCERS + 3,
      'producers-unchanged': 5,
    });
    expect(full.timings['producers-unchanged']).toBeUndefined();
    expect(withoutTimings(changedOnly)).toEqual(withoutTimings(full));
    // Once more: the analysis is given back as it was kept.
    const kept = await analyzeBranches(repo.dir, base, head, { machine });
    expect(kept.timings['analysis-kept']).toBe(1);
    expect(withoutTimings(kept)).toEqual(withoutTimings(full));
    // Without it (evicted from the cache), both commits were rendered before, and both
    // renders are read back whole.
    forgetAnalyses(dir);
    const again = await analyzeBranches(repo.dir, base, head, { machine });
    expect(again.timings).toMatchObject({
      'analysis-kept': 0,
      'producers-rendered': 0,
      'producers-cached': BASE_PRODUCERS + 3 + 5,
      'producers-unchanged': 0,
      'builds-run': 0,
      'renders-kept': 2,
    });
    expect(withoutTimings(again)).toEqual(withoutTimings(full));
    expect(changedOnly.summary.changed).toBeGreaterThan(0);
  });

  it("keys the head's Kustomizations from what they read at base where git says none of it changed", async () => {
    const cases: Array<{ edit: Edit; carried: number }> = [
      // Only README.md changed: the seven Kustomizations keep their reads.
      { edit: {}, carried: 7 },
      // shared.yaml is read by three of a to e: flux-system, apps and two apps are carried.
      { edit: { shared: 'x' }, carried: 4 },
      // vars.yaml is flux-system's: its output redefines apps, which redefines a to e.
      { edit: { tier: 'x' }, carried: 0 },
      // f's folder is new, and apps lists the folder f is added to.
      { edit: { addF: 'x', removeE: 'x' }, carried: 5 },
    ];
    for (const { edit, carried } of cases) {
      const { repo, base, head } = twoRevisions(edit);
      const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-cache-'));
      folders.push(dir);
      const machine = { ...testMachine, renderCache: { dir, maxBytes: 64 * 1024 * 1024 } };
      const changedOnly = await analyzeBranches(repo.dir, base, head, { machine });
      expect(changedOnly.timings?.['builds-carried'], JSON.stringify(edit)).toBe(carried);
      const full = await analyzeBranches(repo.dir, base, head);
      expect(withoutTimings(changedOnly)).toEqual(withoutTimings(full));
    }
  });

  it('keeps what the builds read with a render kept whole, for the next head of the same base', async () => {
    const { repo, base, head } = twoRevisions({ shared: 'x' });
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-cache-'));
    folders.push(dir);
    const machine = { ...testMachine, renderCache: { dir, maxBytes: 64 * 1024 * 1024 } };
    await analyzeBranches(repo.dir, base, head, { machine });
    repo.write({ 'README.md': 'pushed again\n' });
    const next = repo.commit('next');
    const again = await analyzeBranches(repo.dir, base, next, { machine });
    // The base is read back whole, with its record: only the three consumers are keyed anew.
    expect(again.timings).toMatchObject({ 'renders-kept': 1, 'builds-carried': 4 });
    expect(withoutTimings(again)).toEqual(
      withoutTimings(await analyzeBranches(repo.dir, base, next)),
    );
  });
});
