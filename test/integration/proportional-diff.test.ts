/**
 * Diff and risk in proportion to the change: a head rendered changed-only carries the base's
 * very objects for every producer the PR leaves alone, and the diff and the chart rules do
 * not compare or redact those again. What they say must be what walking two separate copies
 * of both sides in full says, whatever the edit.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { diffClusters } from '../../src/diff/index.js';
import type { RenderedCluster } from '../../src/model/render.js';
import { parsePolicy } from '../../src/policy/index.js';
import { RenderMemo } from '../../src/render/index.js';
import { evaluateRisk, RULE_IDS } from '../../src/risk/index.js';
import { builtinEngine, testHelmSettings } from '../support/render.js';
import { makeRepo, type TestRepo } from '../support/repo.js';
import { EDITS, ENTRY, fleet, type Edit } from './changed-only-fleet.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const engine = builtinEngine({ helm: { ...testHelmSettings, enabled: true } });

function render(repo: TestRepo, rev: string, memo: RenderMemo): Promise<RenderedCluster> {
  return engine.render({ repoDir: repo.dir, rev, entry: ENTRY, sources: [], memo });
}

/** The fleet at base and edited at head, rendered changed-only as a review renders them. */
async function review(edit: Edit): Promise<{ base: RenderedCluster; head: RenderedCluster }> {
  const files = fleet();
  const repo = makeRepo(files, { git: true });
  repos.push(repo);
  const baseRev = repo.commit('base');
  const edited = fleet(edit);
  for (const path of Object.keys(files)) {
    if (!(path in edited)) rmSync(join(repo.dir, path));
  }
  repo.write(edited);
  const headRev = repo.commit('head');
  const memo = new RenderMemo();
  const base = await render(repo, baseRev, memo);
  return { base, head: await render(repo, headRev, memo) };
}

/** Diff and risk of one cluster, as analyze runs them. */
function judge(base: RenderedCluster, head: RenderedCluster) {
  const policy = parsePolicy('', RULE_IDS);
  const diff = diffClusters(base, head, { cluster: 'prod', normalize: policy.normalize });
  const findings = evaluateRisk({
    clusters: [{ name: 'prod', base, head, diff }],
    policy,
  });
  return { diff, findings };
}

describe('diff and risk of a head that carries base objects', () => {
  it.each(EDITS.map((name) => [name]))(
    'say what the full walk over separate copies says when %s is edited',
    async (name) => {
      const { base, head } = await review({ [name]: 'edited' });
      const carried = new Set(base.objects);
      // The producers the edit leaves alone carry their base objects themselves.
      expect(head.objects.some((o) => carried.has(o))).toBe(true);
      const proportional = judge(base, head);
      const full = judge(structuredClone(base), structuredClone(head));
      expect(proportional).toEqual(full);
      expect(proportional.diff.changes.length).toBeGreaterThan(0);
    },
  );
});
