/**
 * Conformance against flux-local's recorded outputs (../shared/fixtures/flux-local):
 * every object must match, except the listed places where flux-local differs from
 * Flux; for those the test checks the Flux behaviour instead.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
import { RenderMemo } from '../../src/render/index.js';
import { builtinEngine, fluxLocalRepo, testHelmSettings } from '../support/render.js';
import { findTool } from '../support/tools.js';
import { DIVERGENCES, type Divergence } from './divergences.js';

interface Case {
  snapshot: string;
  file: 'test_build_ks.ambr' | 'test_build_all.ambr';
  entry: string;
  /** Only this Kustomization's objects (flux-local `build ks NAME`). */
  only?: string;
  /** With `only`: also the Kustomizations it needs (parents and dependsOn), as newer flux-local does. */
  withNeeds?: boolean;
  sources?: Array<{ key: string; dir: string }>;
  /** flux-local's newer `build ks`, which also leaves CRDs out. */
  newStyle?: boolean;
  /** The repository's own URL, as the CLI reads it from the `origin` remote. */
  repoUrl?: string;
}

const td = 'tests/testdata';
/** cluster2 models the repository home-ops: its GitRepository points at it by URL. */
const CLUSTER2_URL = 'ssh://git@github.com/example/home-ops';
const CLUSTER2_IGNORE = `!/${td}/cluster2/kubernetes`;
const ksCases = (id: string, entry: string, only?: string): Case[] =>
  ['test_build_ks', 'test_build_ks_new'].map((t) => ({
    snapshot: `${t}[${id}]`,
    file: 'test_build_ks.ambr' as const,
    entry,
    ...(only ? { only, withNeeds: t === 'test_build_ks_new' } : {}),
    newStyle: t === 'test_build_ks_new',
  }));

const CASES: Case[] = [
  ...ksCases('build-ks', `${td}/cluster`),
  ...ksCases('build-ks-single', `${td}/cluster`, 'apps'),
  ...ksCases('build-ks-single-cluster6', `${td}/cluster6`, 'apps'),
  ...ksCases('build-ks-single-cluster8', `${td}/cluster8`, 'apps'),
  ...ksCases('build-ks-single-cluster9', `${td}/cluster9/clusters/dev`, 'apps-stack'),
  {
    snapshot: 'test_build_ks[build-ks-cluster10-invalid-paths]',
    file: 'test_build_ks.ambr',
    entry: `${td}/cluster10`,
  },
  {
    snapshot: 'test_build_ks[build-ks-cluster11-external-artifact]',
    file: 'test_build_ks.ambr',
    entry: `${td}/cluster11`,
    sources: [{ key: 'apps', dir: `${td}/cluster11/externalartifact` }],
  },
  ...['build', 'build-cluster2', 'build-cluster3', 'build-cluster6'].map((id) => ({
    snapshot: `test_build_all[${id}]`,
    file: 'test_build_all.ambr' as const,
    entry: id === 'build' ? `${td}/cluster` : `${td}/cluster${id.slice(-1)}`,
    ...(id === 'build-cluster2' ? { repoUrl: CLUSTER2_URL } : {}),
  })),
];

export function objectKey(manifest: Manifest): string {
  const m = objectMeta(manifest);
  const owner = `${m.labels['kustomize.toolkit.fluxcd.io/namespace'] ?? ''}/${m.labels['kustomize.toolkit.fluxcd.io/name'] ?? ''}`;
  return `${owner} ${apiGroup(m.apiVersion)}/${m.kind}/${m.namespace ?? ''}/${m.name}`;
}

function index(manifests: Manifest[]): Map<string, Manifest> {
  return new Map(manifests.map((m) => [objectKey(m), withoutIndex(m)]));
}

/** The named Kustomization and, transitively, its parents and dependencies. */
function needs(cluster: RenderedCluster, name: string): Set<string> {
  const wanted = new Set<string>();
  const visit = (n: string): void => {
    if (wanted.has(n)) return;
    wanted.add(n);
    const p = cluster.producers.find((x) => x.name === n);
    if (!p) return;
    if ('parent' in p.definedIn) visit(p.definedIn.parent.name);
    p.dependsOn.forEach((d) => visit(d.name));
  };
  visit(name);
  return wanted;
}

function ours(cluster: RenderedCluster, c: Case): Manifest[] {
  const only =
    c.only === undefined ? undefined : c.withNeeds ? needs(cluster, c.only) : new Set([c.only]);
  // flux-local leaves Secrets out by default, and CRDs too in its newer `build ks`.
  const skipped = c.newStyle ? ['Secret', 'CustomResourceDefinition'] : ['Secret'];
  return cluster.objects
    .filter((o) => o.producer.kind === 'Kustomization')
    .filter((o) => !skipped.includes(String(o.manifest['kind'])))
    .filter((o) => only === undefined || only.has(o.producer.name))
    .map((o) => o.manifest);
}

/**
 * Five ways: every build run by a kustomize process; every build run by one kustomize-server
 * process (tools/kustomize-server); every build answered by a render cache that an
 * identical render filled just before (a cached result must be the build's own); every
 * producer taken from a render of the same tree, as the head of a changed-only review takes
 * those whose key did not change (a producer taken must be the one rendered); and the
 * render of a commit read back whole from the cache (a kept render must be the render
 * itself).
 */
const NONE = { cached: false, unchanged: false, whole: false, server: false };
const MODES = [
  { ...NONE, mode: 'with every build run by a kustomize process' },
  { ...NONE, mode: 'with every build run by kustomize-server', server: true },
  { ...NONE, mode: 'from a warm render cache', cached: true },
  { ...NONE, mode: 'taking unchanged producers from a render of the same tree', unchanged: true },
  { ...NONE, mode: 'reading a commit rendered before back whole', cached: true, whole: true },
];

/** kustomize-server is optional locally; under CI, scripts/install-tools just built it. */
const serverMissing = findTool('kustomize-server') === undefined;
if (serverMissing && process.env['CI'] !== 'true')
  console.warn('flux-local conformance: kustomize-server is not installed; its way is skipped');

/** The fixtures as one commit, for the renders of a revision. */
function commitAll(dir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], {
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'fixtures');
}

describe.skipIf(!hasFluxLocalFixtures).each(MODES)(
  'flux-local conformance snapshots, $mode',
  ({ cached, unchanged, whole, server }) => {
    let repo = '';
    let cacheDir = '';
    const renders = new Map<string, Promise<RenderedCluster>>();
    let taken = 0;
    let kept = 0;
    // A render with a chart that could not be fetched is never kept, and the fixtures'
    // charts are remote: read back whole, the snapshots' Kustomizations render without helm.
    const engine = () =>
      builtinEngine({
        ...(cached ? { cache: { dir: cacheDir, maxBytes: 256 * 1024 * 1024 } } : {}),
        ...(whole ? { helm: { ...testHelmSettings, enabled: false } } : {}),
        kustomizeServer: server,
      });
    const render = (c: Case): Promise<RenderedCluster> => {
      const key = `${c.entry}|${JSON.stringify(c.sources ?? [])}`;
      let r = renders.get(key);
      if (!r) {
        const once = (memo?: RenderMemo) =>
          engine().render({
            repoDir: repo,
            entry: c.entry,
            sources: (c.sources ?? []).map((s) => ({ key: s.key, dir: join(repo, s.dir) })),
            ...(c.repoUrl ? { repoUrl: c.repoUrl } : {}),
            ...(memo ? { memo } : {}),
            ...(whole ? { rev: 'HEAD' } : {}),
          });
        const memo = new RenderMemo();
        r = cached
          ? once().then(async () => {
              const warm = await once();
              expect(warm.cache?.misses).toBe(0);
              if (warm.cache?.whole) kept += 1;
              return warm;
            })
          : unchanged
            ? once(memo).then(async () => {
                const again = await once(memo);
                taken += memo.counts.unchanged;
                return again;
              })
            : once();
        renders.set(key, r);
      }
      return r;
    };

    beforeAll(() => {
      repo = fluxLocalRepo();
      if (whole) commitAll(repo);
      cacheDir = mkdtempSync(join(tmpdir(), 'fluxlens-conformance-cache-'));
    });
    afterAll(() => {
      rmSync(repo, { recursive: true, force: true });
      rmSync(cacheDir, { recursive: true, force: true });
      // Equal because producers were taken from the first render, not because none was.
      if (unchanged) expect(taken).toBeGreaterThan(0);
      // Equal because renders were read back whole, not because none was kept.
      if (whole) expect(kept).toBeGreaterThan(0);
    });

    if (server && serverMissing) {
      it.skipIf(process.env['CI'] !== 'true')('needs kustomize-server', () => {
        throw new Error(
          'kustomize-server is not installed (scripts/install-tools kustomize-server)',
        );
      });
      return;
    }

    it.each(CASES)('$snapshot matches, divergences checked the Flux way', async (c) => {
      const cluster = await render(c);
      // Which of the two ran every build, as the cluster names its tools.
      expect(cluster.tools['kustomize-server'] !== undefined).toBe(server);
      const { unexplained, applied } = compare(c.snapshot, c.file, ours(cluster, c), cluster);
      expect(unexplained).toEqual([]);
      for (const d of DIVERGENCES.filter((d) => d.expectedIn.includes(c.snapshot))) {
        expect(applied.has(d), `divergence '${d.name}' shows up in ${c.snapshot}`).toBe(true);
      }
    });

    it('renders cluster2 as flux-local does once its GitRepository ignore rule admits the tree', async () => {
      const fixed = fluxLocalRepo();
      try {
        const file = join(fixed, td, 'cluster2/flux/config/cluster.yaml');
        writeFileSync(
          file,
          readFileSync(file, 'utf8').replace(CLUSTER2_IGNORE, `!/${td}/cluster2`),
        );
        const cluster = await engine().render({
          repoDir: fixed,
          entry: `${td}/cluster2`,
          sources: [],
          repoUrl: CLUSTER2_URL,
        });
        const c: Case = {
          snapshot: 'test_build_all[build-cluster2]',
          file: 'test_build_all.ambr',
          entry: '',
        };
        const { unexplained } = compare(c.snapshot, c.file, ours(cluster, c), cluster, []);
        expect(unexplained).toEqual([
          expect.stringMatching(
            /^differs flux-system\/cluster source\.toolkit\.fluxcd\.io\/GitRepository\/flux-system\/home-ops-kubernetes/,
          ),
        ]);
      } finally {
        rmSync(fixed, { recursive: true, force: true });
      }
    });
  },
);

function compare(
  snapshot: string,
  file: Case['file'],
  objects: Manifest[],
  cluster: RenderedCluster,
  divergences: readonly Divergence[] = DIVERGENCES.filter((d) => d.expectedIn.includes(snapshot)),
): { unexplained: string[]; applied: Set<Divergence> } {
  const recorded = readAmbr(join(fluxLocalFixtures, 'snapshots', file)).get(snapshot);
  expect(recorded, `snapshot ${snapshot} is in ${file}`).toBeDefined();
  const expected = index(parseDocuments(recorded ?? '').documents.map((d) => d.manifest));
  const actual = index(objects);
  expect(expected.size).toBeGreaterThan(0);
  const unexplained: string[] = [];
  const applied = new Set<Divergence>();
  for (const key of new Set([...expected.keys(), ...actual.keys()])) {
    const want = expected.get(key);
    const got = actual.get(key);
    if (want && got && JSON.stringify(sortDeep(want)) === JSON.stringify(sortDeep(got))) continue;
    const divergence = divergences.find((d) => d.explains(key, want, got));
    if (!divergence) {
      unexplained.push(describeMismatch(key, want, got));
      continue;
    }
    applied.add(divergence);
    divergence.checkFlux({ key, ours: got, all: actual, cluster });
  }
  return { unexplained, applied };
}

function describeMismatch(
  key: string,
  want: Manifest | undefined,
  got: Manifest | undefined,
): string {
  if (!got) return `missing ${key}`;
  if (!want) return `extra ${key}`;
  return `differs ${key}\n  want ${JSON.stringify(sortDeep(want))}\n  got  ${JSON.stringify(sortDeep(got))}`;
}
