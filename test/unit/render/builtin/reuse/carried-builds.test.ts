/**
 * Which recorded builds a change leaves as they were (carried-builds.ts). The record and
 * the paths are written out here; test/integration/changed-only.test.ts checks that what
 * is carried gives the full render's result on real repositories.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CarriedBuilds,
  type BuildReads,
} from '../../../../../src/render/builtin/reuse/carried-builds.js';
import {
  ReviewReads,
  readRenderReads,
  writeRenderReads,
} from '../../../../../src/render/builtin/reuse/render-reads.js';
import { RenderCache, RenderMemo } from '../../../../../src/render/cache/index.js';
import { testRunner } from '../../../../support/render.js';
import { makeRepo } from '../../../../support/repo.js';

const PRODUCER = 'Kustomization/flux-system/app';
const RELEASE = 'HelmRelease/apps/web';

/** An app whose kustomization lists a file, a base folder and a generated folder. */
const reads: BuildReads = {
  build: 'build-key',
  fluxWantsOrigin: false,
  spec: 'spec-key',
  files: ['apps/app/kustomization.yaml', 'apps/app/deploy.yaml', 'base/kustomization.yaml'],
  dirs: ['apps/app', 'base'],
  trees: ['generated'],
};

function after(changed: string[]): BuildReads | undefined {
  const carried = CarriedBuilds.between(new Map([[PRODUCER, reads]]), changed);
  return carried?.unchanged(PRODUCER, 'spec-key');
}

describe('a recorded build', () => {
  it('is carried when no path it read changed', () => {
    expect(after([])).toBe(reads);
    expect(after(['README.md', 'apps/other/deploy.yaml', 'base/deeper/file.yaml'])).toBe(reads);
  });

  it('is not when a file it read changed', () => {
    expect(after(['apps/app/deploy.yaml'])).toBeUndefined();
    expect(after(['base/kustomization.yaml'])).toBeUndefined();
  });

  it('is not when a folder it listed gains a file (a kustomization file may now be found)', () => {
    expect(after(['apps/app/kustomization.yml'])).toBeUndefined();
    expect(after(['base/Kustomization'])).toBeUndefined();
  });

  it('is not when anything below a folder it read whole changed', () => {
    expect(after(['generated/a/b/new.yaml'])).toBeUndefined();
  });

  it('is not when its Kustomization or its source rules are not the same', () => {
    const carried = CarriedBuilds.between(new Map([[PRODUCER, reads]]), []);
    expect(carried?.unchanged(PRODUCER, 'other-spec')).toBeUndefined();
    expect(carried?.unchanged('Kustomization/flux-system/unrecorded', 'spec-key')).toBeUndefined();
  });

  it('is never carried across a change to a .sourceignore, anywhere', () => {
    expect(CarriedBuilds.between(new Map([[PRODUCER, reads]]), ['docs/.sourceignore'])).toBe(
      undefined,
    );
  });
});

describe('a recorded release', () => {
  it('gives its key for the same pre-key, whatever paths changed', () => {
    const releases = new Map([[RELEASE, { pre: 'pre-key', key: 'release-key' }]]);
    const carried = CarriedBuilds.between(new Map(), ['apps/web/values.yaml'], releases);
    expect(carried?.release(RELEASE, 'pre-key')).toBe('release-key');
    expect(carried?.release(RELEASE, 'other-pre-key')).toBeUndefined();
    expect(carried?.release('HelmRelease/apps/other', 'pre-key')).toBeUndefined();
  });
});

describe('what discovery found', () => {
  it('is carried only when no path in the entry changed', () => {
    const carried = CarriedBuilds.between(new Map(), ['apps/app/deploy.yaml']);
    expect(carried?.untouched('clusters/prod')).toBe(true);
    expect(carried?.untouched('apps')).toBe(false);
    expect(carried?.untouched('.')).toBe(false);
    expect(
      CarriedBuilds.between(new Map(), ['clusters/prod/apps.yaml'])?.untouched('clusters/prod'),
    ).toBe(false);
  });

  it('is kept with the builds and the remembered charts beside a render kept whole, and read back as it was', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fluxlens-render-reads-'));
    try {
      const store = new RenderCache(dir, 1024 * 1024);
      const releases = new Map([[RELEASE, { pre: 'pre-key', key: 'release-key' }]]);
      const subject = {
        source: 'https://charts.example/',
        host: 'charts.example',
        chart: 'a',
        version: '1.0.0',
      };
      const unavailable = new Map([[RELEASE, { subject, failedAt: 1000, until: 301_000 }]]);
      const found = {
        manifest: { kind: 'Kustomization', spec: { path: './apps' } },
        file: 'c/ks.yaml',
        line: 3,
      };
      const discovery = {
        entry: 'c',
        kustomizations: [found],
        helmReleases: [],
        sources: [],
        configData: [],
        instances: [],
      };
      await writeRenderReads(store, 'a'.repeat(64), {
        builds: new Map([[PRODUCER, reads]]),
        releases,
        unavailable,
        discovery,
      });
      expect(await readRenderReads(store, 'a'.repeat(64))).toEqual({
        builds: new Map([[PRODUCER, reads]]),
        releases,
        unavailable,
        discovery,
      });
      // What JSON cannot give back as it was is not kept: the builds and releases still are.
      const odd = { ...discovery, configData: [{ ...found, manifest: { data: { n: Infinity } } }] };
      await writeRenderReads(store, 'b'.repeat(64), {
        builds: new Map([[PRODUCER, reads]]),
        releases,
        unavailable: new Map(),
        discovery: odd,
      });
      expect(await readRenderReads(store, 'b'.repeat(64))).toEqual({
        builds: new Map([[PRODUCER, reads]]),
        releases,
        unavailable: new Map(),
      });
      expect(await readRenderReads(store, 'c'.repeat(64))).toEqual({
        builds: new Map(),
        releases: new Map(),
        unavailable: new Map(),
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the review's other render's record", () => {
  it('hands on discovery when no path in the entry changed, as git tells it', async () => {
    const repo = makeRepo(
      { 'clusters/prod/ks.yaml': 'a: 1\n', 'apps/web/deploy.yaml': 'b: 1\n' },
      { git: true },
    );
    try {
      const base = repo.commit('base');
      repo.write({ 'apps/web/deploy.yaml': 'b: 2\n' });
      const appOnly = repo.commit('app');
      repo.write({ 'clusters/prod/ks.yaml': 'a: 2\n' });
      const entryToo = repo.commit('entry');
      const discovery = {
        entry: 'clusters/prod',
        kustomizations: [
          { manifest: { kind: 'Kustomization' }, file: 'clusters/prod/ks.yaml', line: 1 },
        ],
        helmReleases: [],
        sources: [],
        configData: [],
        instances: [],
      };
      const carriedAt = async (sha: string) => {
        const memo = new RenderMemo();
        const reads = new ReviewReads();
        reads.begin(memo, base, discovery);
        const request = {
          repoDir: repo.dir,
          rev: sha,
          entry: './clusters/prod',
          sources: [],
          memo,
        };
        return reads.carried(testRunner(), request, sha);
      };
      const app = await carriedAt(appOnly);
      expect(app?.discovery).toEqual(discovery);
      // A copy: nothing of one render's objects reaches the other.
      expect(app?.discovery?.kustomizations[0]).not.toBe(discovery.kustomizations[0]);
      const entry = await carriedAt(entryToo);
      expect(entry?.builds).toBeDefined();
      expect(entry?.discovery).toBeUndefined();
    } finally {
      repo.remove();
    }
  });
});
