/**
 * The render benchmark's synthetic fleet is a function of its options: the same seed gives
 * the same repository, byte for byte and commit for commit, so figures from two machines
 * or two days measure the same thing; and each PR branch changes what its scenario says.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { generateFleet, type FleetOptions } from '../../bench/render/generate-fleet.js';
import { writeFleet } from '../../bench/render/write-fleet.js';

const options: FleetOptions = {
  seed: 7,
  kustomizations: 30,
  releases: 8,
  chartRepositoryUrl: 'http://127.0.0.1:8879',
};

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function kinds(files: Record<string, string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [path, text] of Object.entries(files)) {
    if (!path.startsWith('clusters/') && !path.endsWith('helmreleases.yaml')) continue;
    for (const doc of parseAllDocuments(text)) {
      const kind = String((doc.toJS() as { kind?: unknown } | null)?.kind);
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
  }
  return counts;
}

describe('the benchmark fleet', () => {
  it('is the same repository for the same seed and options', () => {
    expect(generateFleet(options)).toEqual(generateFleet({ ...options }));
  });

  it('differs for another seed, with the same number of Kustomizations and HelmReleases', () => {
    const a = generateFleet(options);
    const b = generateFleet({ ...options, seed: 8 });
    expect(b.files).not.toEqual(a.files);
    expect(kinds(b.files)).toEqual(kinds(a.files));
  });

  it('holds as many Flux Kustomizations and HelmReleases as asked', () => {
    const counts = kinds(generateFleet(options).files);
    expect(counts.get('Kustomization')).toBe(30);
    expect(counts.get('HelmRelease')).toBe(8);
    expect(counts.get('HelmRepository')).toBe(1);
  });

  it('points its HelmRepository at the chart repository it is given', () => {
    const { files } = generateFleet(options);
    expect(files['clusters/prod/sources/bench-charts.yaml']).toContain(
      'url: http://127.0.0.1:8879',
    );
  });

  it('has PR branches that change one file, a shared component and one chart version', () => {
    const fleet = generateFleet(options);
    const branch = (scenario: string) => fleet.branches.find((b) => b.scenario === scenario);
    const oneFile = branch('one-file');
    expect(Object.keys(oneFile?.files ?? {})).toEqual([fleet.facts.oneFile]);
    expect(oneFile?.files[fleet.facts.oneFile]).not.toBe(fleet.files[fleet.facts.oneFile]);

    const fanOut = Object.entries(branch('fan-out')?.files ?? {});
    const changed = fanOut.filter(([path, text]) => fleet.files[path] !== text).map(([p]) => p);
    expect(changed).toEqual(['components/network-policy/network-policy.yaml']);
    expect(fleet.facts.fanOut).toBe(14);

    const [bump] = Object.entries(branch('chart-bump')?.files ?? {});
    expect(bump?.[1]).toContain('version: 1.1.0');
    expect(fleet.files[bump?.[0] ?? '']).not.toContain('version: 1.1.0');
  });

  it('writes the same commits for the same fleet', () => {
    const fleet = generateFleet(options);
    const commits = [1, 2].map(() => {
      const dir = mkdtempSync(join(tmpdir(), 'fluxlens-bench-fleet-'));
      dirs.push(dir);
      return writeFleet(join(dir, 'repo'), fleet);
    });
    expect(Object.keys(commits[0] ?? {})).toEqual([
      'main',
      'pr/one-file',
      'pr/fan-out',
      'pr/chart-bump',
    ]);
    expect(commits[1]).toEqual(commits[0]);
  });
});
