/**
 * The GitHub workflows do what the README says: CI runs `.ci/run`; a release tag is checked
 * against package.json, deploy/ and CHANGELOG.md before the multi-arch image (with SBOM and
 * provenance) is pushed and the release published; every job asks only for what it needs;
 * and every action used here, in action.yml and in the README's example runs on Node 24.
 * actionlint, in `npm test`, checks the rest (syntax, expressions, the shell of run steps).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';

const Step = z.object({
  name: z.string().optional(),
  id: z.string().optional(),
  uses: z.string().optional(),
  run: z.string().optional(),
  with: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
});
const Job = z.object({
  needs: z.union([z.string(), z.array(z.string())]).optional(),
  permissions: z.record(z.string(), z.string()).optional(),
  steps: z.array(Step),
});
const Workflow = z.object({
  on: z.record(z.string(), z.unknown()),
  permissions: z.record(z.string(), z.string()),
  jobs: z.record(z.string(), Job),
});

const dir = join(projectRoot, '.github', 'workflows');
const read = (path: string) => readFileSync(join(projectRoot, path), 'utf8');
const workflow = (name: string) => Workflow.parse(parse(read(`.github/workflows/${name}`)));
const ci = workflow('ci.yml');
const release = workflow('release.yml');
const stepsOf = (w: z.infer<typeof Workflow>) => Object.values(w.jobs).flatMap((job) => job.steps);

/**
 * The first major of each action whose runtime is node24 (its action.yml says `using:
 * node24`); the majors before run on Node 20, which GitHub's runners no longer carry.
 */
const FIRST_NODE24_MAJOR: Record<string, number> = {
  'actions/checkout': 5,
  'actions/setup-node': 5,
  'actions/cache': 5,
  'actions/upload-artifact': 6,
  'actions/download-artifact': 7,
  'docker/setup-qemu-action': 4,
  'docker/setup-buildx-action': 4,
  'docker/login-action': 4,
  'docker/build-push-action': 7,
};

describe('the CI workflow', () => {
  it('runs .ci/run on pushes and pull requests, with Node.js from the scripts', () => {
    expect(Object.keys(ci.on).sort()).toEqual(['pull_request', 'push']);
    expect(ci.permissions).toEqual({ contents: 'read' });
    const steps = stepsOf(ci);
    expect(steps.map((s) => s.run).filter(Boolean)).toEqual(['bash .ci/run']);
    expect(steps.filter((s) => s.uses?.startsWith('actions/setup-node'))).toEqual([]);
  });
});

describe('the release workflow', () => {
  const { check, image, publish } = release.jobs;

  it('runs on version tags only, with no permission unless a job asks', () => {
    expect(release.on).toEqual({
      push: { tags: ['v[0-9]+.[0-9]+.[0-9]+', 'v[0-9]+.[0-9]+.[0-9]+-*'] },
    });
    expect(release.permissions).toEqual({});
    expect(check?.permissions).toEqual({ contents: 'read' });
    expect(image?.permissions).toEqual({ contents: 'read', packages: 'write' });
    expect(publish?.permissions).toEqual({ contents: 'write' });
  });

  it('checks the tag against package.json, deploy/ and CHANGELOG.md before anything is published', () => {
    expect(check?.steps.some((s) => s.run?.includes('scripts/release/main.ts "$TAG"'))).toBe(true);
    expect(image?.needs).toBe('check');
    expect(publish?.needs).toEqual(['check', 'image']);
  });

  it('pushes the image for amd64 and arm64 with its SBOM, full provenance, version and revision', () => {
    const build = image?.steps.find((s) => s.uses?.startsWith('docker/build-push-action@'));
    expect(build?.with).toMatchObject({
      platforms: 'linux/amd64,linux/arm64',
      push: true,
      sbom: true,
      provenance: 'mode=max',
    });
    expect(String(build?.with?.['build-args'])).toMatch(
      /^VERSION=\$\{\{ needs\.check\.outputs\.version \}\}\nREVISION=\$\{\{ github\.sha \}\}\n$/,
    );
  });

  it("moves the Action's major tag and releases with the CHANGELOG section", () => {
    const runs = publish?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(runs).toContain('git push --force origin "refs/tags/$major"');
    expect(runs).toContain('--notes-file release-notes.md');
  });
});

describe('the actions fluxlens uses and shows', () => {
  const files = [
    ...readdirSync(dir).map((name) => `.github/workflows/${name}`),
    'action.yml',
    'README.md',
  ];
  const uses = files.flatMap((file) =>
    [...read(file).matchAll(/uses: ([\w-]+\/[\w-]+)(?:\/[\w/-]+)?@(\S+)/g)].map((m) => ({
      file,
      action: m[1] ?? '',
      ref: m[2] ?? '',
    })),
  );

  it('run on Node 24: each at a major that declares node24, or later', () => {
    const others = uses.filter((u) => u.action !== 'fluxlens/fluxlens');
    expect(others.length).toBeGreaterThan(8);
    for (const { file, action, ref } of others) {
      const first = FIRST_NODE24_MAJOR[action];
      expect(first, `${file}: ${action} is not known to run on node24`).toBeDefined();
      expect(ref, `${file}: ${action}@${ref}`).toMatch(/^v\d+$/);
      expect(Number(ref.slice(1)), `${file}: ${action}@${ref}`).toBeGreaterThanOrEqual(first ?? 0);
    }
  });
});
