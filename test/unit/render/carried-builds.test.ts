/**
 * Which recorded builds a change leaves as they were (carried-builds.ts). The record and
 * the paths are written out here; test/integration/changed-only.test.ts checks that what
 * is carried gives the full render's result on real repositories.
 */
import { describe, expect, it } from 'vitest';
import { CarriedBuilds, type BuildReads } from '../../../src/render/builtin/carried-builds.js';

const PRODUCER = 'Kustomization/flux-system/app';

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
