/**
 * wide-change and the same change in many apps: one benign change made the same way in
 * every app (a backup retention in each app's volsync ReplicationSource, as home-ops
 * repositories give every app one from a shared component) is one change, not 23; the same
 * change that restarts pods or feeds Flux objects is still wide. The diff is the real
 * diff step's, so "the same change" is what the reports show once.
 */
import { describe, expect, it } from 'vitest';
import { diffClusters } from '../../../src/diff/index.js';
import type { Manifest, Producer, ProducerRef, RenderedObject } from '../../../src/model/render.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { evaluateRisk } from '../../../src/risk/evaluate-risk.js';
import {
  DEFAULT_PRODUCERS,
  ROOT,
  cluster,
  deployment,
  helmRelease,
  obj,
  place,
  producer,
} from './scenario.js';

const APPS = Array.from({ length: 23 }, (_, i) => `app-${String(i).padStart(2, '0')}`);
const appRef = (app: string): ProducerRef => ({
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: app,
});
const PRODUCERS: Producer[] = [
  ...DEFAULT_PRODUCERS,
  ...APPS.map((app) => producer(appRef(app), { definedIn: { parent: ROOT } })),
];

/** components/volsync/replicationsource.yaml with ${APP} substituted. */
function replicationSource(app: string, retain: Record<string, number>): Manifest {
  return obj('volsync.backube/v1alpha1', 'ReplicationSource', app, 'default', {
    spec: {
      sourcePVC: app,
      trigger: { schedule: '0 * * * *' },
      restic: {
        copyMethod: 'Snapshot',
        pruneIntervalDays: 14,
        repository: `${app}-volsync-secret`,
        volumeSnapshotClassName: 'csi-ceph-blockpool',
        cacheCapacity: '5Gi',
        cacheStorageClassName: 'ceph-block',
        cacheAccessModes: ['ReadWriteOnce'],
        storageClassName: 'ceph-block',
        accessModes: ['ReadWriteOnce'],
        moverSecurityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
        retain,
      },
    },
  });
}

type PerApp = (app: string, index: number) => Manifest;

const each = (make: PerApp): RenderedObject[] =>
  APPS.map((app, i) => place(make(app, i), { producer: appRef(app), file: `apps/${app}/ks.yaml` }));

/** Whether wide-change fires when every app's object goes from `before` to `after`, plus `extra`. */
function wide(
  before: PerApp,
  after: PerApp,
  extra: { base?: RenderedObject[]; head?: RenderedObject[] } = {},
) {
  const base = cluster([...each(before), ...(extra.base ?? [])], PRODUCERS);
  const head = cluster([...each(after), ...(extra.head ?? [])], PRODUCERS);
  const diff = diffClusters(base, head, { cluster: 'home', normalize: DEFAULT_POLICY.normalize });
  const findings = evaluateRisk({
    clusters: [{ name: 'home', diff, base, head }],
    policy: DEFAULT_POLICY,
  });
  return findings.filter((f) => f.rule === 'wide-change').map((f) => f.message);
}

const weekly = (app: string) => replicationSource(app, { hourly: 24, daily: 7 });
const fortnightly = (app: string) => replicationSource(app, { hourly: 24, daily: 14 });
const withEnv = (env: Record<string, string>) => (app: string) =>
  deployment(
    app,
    {},
    {
      containers: [
        {
          name: 'app',
          image: `ghcr.io/home-operations/${app}:1.0.0`,
          env: Object.entries(env).map(([name, value]) => ({ name, value })),
        },
      ],
    },
  );
const values = (v: Record<string, unknown>) => (app: string) => ({
  ...helmRelease({ kind: 'HelmRelease', namespace: 'default', name: app }, { values: v }),
});
/** A ConfigMap in each of the first `count` apps, with a value of its own. */
const configMaps = (count: number, value: (i: number) => string) =>
  Array.from({ length: count }, (_, i) =>
    place(obj('v1', 'ConfigMap', `settings-${i}`, 'default', { data: { a: value(i) } }), {
      producer: appRef(APPS[i] ?? 'app-00'),
    }),
  );

describe('wide-change and the same change in many apps', () => {
  it('stays quiet for the same retention change in 23 apps', () => {
    expect(wide(weekly, fortnightly)).toEqual([]);
  });

  it('flags 23 apps that each get a different retention', () => {
    expect(wide(weekly, (app, i) => replicationSource(app, { hourly: 24, daily: 8 + i }))).toEqual([
      expect.stringContaining('23 objects across 23 producers'),
    ]);
  });

  it('flags the same change in 23 apps when it restarts their pods', () => {
    expect(wide(withEnv({ TZ: 'UTC' }), withEnv({ TZ: 'Europe/Paris' }))).toEqual([
      expect.stringContaining('23 objects across 23 producers'),
    ]);
  });

  it('flags the same values patch in 23 HelmReleases', () => {
    expect(wide(values({ replicas: 1 }), values({ replicas: 2 }))).toEqual([
      expect.stringContaining('23 objects across 23 producers'),
    ]);
  });

  it('flags 23 Secrets given new values, though their redacted diffs look the same', () => {
    const secret = (token: string) => (app: string) =>
      obj('v1', 'Secret', `${app}-volsync-secret`, 'default', {
        stringData: { RESTIC_PASSWORD: `${token}-${app}` },
      });
    expect(wide(secret('old'), secret('new'))).toEqual([
      expect.stringContaining('23 objects across 23 producers'),
    ]);
  });

  it('flags the same object added to 23 apps', () => {
    const none = (app: string) => obj('v1', 'ConfigMap', `${app}-placeholder`, 'default');
    expect(wide(none, weekly)).toEqual([expect.stringContaining('across 23 producers')]);
  });

  it('still counts what else changes beside a uniform benign change', () => {
    const ten = configMaps(10, () => '1');
    const changed = configMaps(10, (i) => `changed-${i}`);
    expect(wide(weekly, fortnightly, { base: ten, head: changed })).toEqual([
      expect.stringContaining('10 objects across'),
    ]);
  });
});
