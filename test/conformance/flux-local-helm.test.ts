/**
 * HelmRelease conformance against flux-local's recorded outputs for local charts (no
 * network): every chart object matches, except where flux-local is known to differ
 * from helm-controller; there the test checks what helm-controller does instead.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HelmSettings } from '../../src/render/index.js';
import {
  apiGroup,
  objectMeta,
  type Manifest,
  type RenderedCluster,
} from '../../src/model/render.js';
import { parseDocuments } from '../../src/yaml/yaml.js';
import { sortDeep, withoutIndex } from './snapshot-objects.js';
import { readAmbr } from '../support/ambr.js';
import { fluxLocalFixtures, hasFluxLocalFixtures } from '../support/paths.js';
import { builtinEngine, fluxLocalRepo, testHelmSettings } from '../support/render.js';

const td = 'tests/testdata';
const ORIGIN_LABELS = ['helm.toolkit.fluxcd.io/name', 'helm.toolkit.fluxcd.io/namespace'];

interface HelmCase {
  snapshot: string;
  file: 'test_build_hr.ambr' | 'test_build_all.ambr';
  entry: string;
  release: { namespace: string; name: string };
  /** The chart whose `# Source:` documents the snapshot holds for this release. */
  chart: string;
  helm: Partial<HelmSettings>;
  /** flux-local's `--show-only`: only these chart templates. */
  showOnly?: string[];
  /** Divergences that must show up in this snapshot. */
  expect: Array<'origin-labels' | 'release-namespace'>;
}

const flagFixture = {
  entry: `${td}/cluster12/cluster`,
  release: { namespace: 'default', name: 'flag-fixture' },
  chart: 'flag-fixture',
};

const CASES: HelmCase[] = [
  {
    snapshot: 'test_build_hr[build-hr-flag-fixture-include-crds]',
    file: 'test_build_hr.ambr',
    ...flagFixture,
    helm: {},
    expect: ['origin-labels'],
  },
  {
    // flux-local leaves CRDs out unless told otherwise; helm-controller's upgrade would
    // apply them (upgrade.crds defaults to Create), hence skipCrds to match the command.
    snapshot: 'test_build_hr[build-hr-flag-fixture-upgrade]',
    file: 'test_build_hr.ambr',
    ...flagFixture,
    helm: { isUpgrade: true, skipCrds: true },
    expect: ['origin-labels'],
  },
  {
    snapshot: 'test_build_hr[build-hr-flag-fixture-show-only-multiple]',
    file: 'test_build_hr.ambr',
    ...flagFixture,
    helm: { skipCrds: true },
    showOnly: ['templates/configmap.yaml', 'templates/service.yaml'],
    expect: ['origin-labels'],
  },
  {
    snapshot: 'test_build_all[build-helm-cluster9]',
    file: 'test_build_all.ambr',
    entry: `${td}/cluster9/clusters/dev`,
    release: { namespace: 'default', name: 'nginx' },
    chart: 'nginx',
    helm: {},
    expect: ['origin-labels', 'release-namespace'],
  },
];

/** The snapshot's documents rendered from `chart`, found by helm's `# Source:` headers. */
function chartDocuments(text: string, chart: string): Manifest[] {
  return text
    .split(/^---$/m)
    .filter((chunk) => new RegExp(`^# Source: ${chart}/`, 'm').test(chunk))
    .flatMap((chunk) => parseDocuments(chunk).documents.map((d) => d.manifest));
}

/** Namespace-insensitive key: one of the divergences is where a chart object lands. */
function key(manifest: Manifest): string {
  const m = objectMeta(manifest);
  return `${apiGroup(m.apiVersion)}/${m.kind}/${m.name}`;
}

/**
 * Checks, then removes from our object, what helm-controller does and flux-local does
 * not: the origin labels on every object, and the release namespace on namespace-less
 * namespaced objects. Returns which of the two applied.
 */
function explainDivergences(ours: Manifest, theirs: Manifest, c: HelmCase): Set<string> {
  const applied = new Set<string>();
  const metadata = ours['metadata'] as Record<string, unknown>;
  const labels = (metadata['labels'] ?? {}) as Record<string, string>;
  const theirLabels = objectMeta(theirs).labels;
  if (ORIGIN_LABELS.some((l) => l in labels && !(l in theirLabels))) {
    expect(labels['helm.toolkit.fluxcd.io/name']).toBe(c.release.name);
    expect(labels['helm.toolkit.fluxcd.io/namespace']).toBe(c.release.namespace);
    ORIGIN_LABELS.forEach((l) => delete labels[l]);
    if (Object.keys(labels).length === 0) delete metadata['labels'];
    applied.add('origin-labels');
  }
  if (objectMeta(theirs).namespace === undefined && metadata['namespace'] !== undefined) {
    expect(metadata['namespace']).toBe(c.release.namespace);
    delete metadata['namespace'];
    applied.add('release-namespace');
  }
  return applied;
}

describe.skipIf(!hasFluxLocalFixtures)('flux-local HelmRelease snapshots (local charts)', () => {
  let repo = '';
  beforeAll(() => {
    repo = fluxLocalRepo();
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it.each(CASES)('$snapshot matches, divergences checked the helm-controller way', async (c) => {
    const engine = builtinEngine({ helm: { ...testHelmSettings, ...c.helm } });
    const cluster: RenderedCluster = await engine.render({
      repoDir: repo,
      entry: c.entry,
      sources: [],
    });
    const release = cluster.producers.find(
      (p) =>
        p.kind === 'HelmRelease' &&
        p.name === c.release.name &&
        p.namespace === c.release.namespace,
    );
    expect(release?.error).toBeUndefined();
    const ours = cluster.objects
      .filter((o) => o.producer.kind === 'HelmRelease' && o.producer.name === c.release.name)
      .filter((o) => !c.showOnly || c.showOnly.some((t) => o.file?.endsWith(`/${c.chart}/${t}`)))
      .map((o) => structuredClone(o.manifest));
    const recorded = readAmbr(join(fluxLocalFixtures, 'snapshots', c.file)).get(c.snapshot);
    expect(recorded, `snapshot ${c.snapshot}`).toBeDefined();
    const theirs = new Map(
      chartDocuments(recorded ?? '', c.chart).map((m) => [key(m), withoutIndex(m)]),
    );
    expect(theirs.size).toBeGreaterThan(0);
    expect(ours.map(key).sort()).toEqual([...theirs.keys()].sort());
    const applied = new Set<string>();
    for (const object of ours) {
      const expected = theirs.get(key(object))!;
      explainDivergences(object, expected, c).forEach((d) => applied.add(d));
      expect(sortDeep(object), key(object)).toEqual(sortDeep(expected));
    }
    expect([...applied].sort()).toEqual([...c.expect].sort());
  });
});
