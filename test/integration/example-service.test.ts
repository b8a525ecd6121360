/**
 * `npm run example:service` is the smoke test of the service path: scripts/example-service
 * runs as a user runs it (real `fluxlens serve`, git over smart HTTP, the GitHub emulator, a
 * signed webhook) and is judged by what it prints. The example's policy fails on danger and
 * its pull request has danger findings, so the check run fails and the comment says DANGER.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';
import { runFile, type FileRun } from '../support/run-file.js';

/** The script reinstalls node_modules when it is older than the lock file; never under a test. */
function refuseToReinstall(): void {
  const installed = join(projectRoot, 'node_modules', '.package-lock.json');
  const lock = join(projectRoot, 'package-lock.json');
  if (!existsSync(installed) || statSync(lock).mtimeMs > statSync(installed).mtimeMs) {
    throw new Error('node_modules is older than package-lock.json: run npm ci before this test');
  }
}

describe('npm run example:service', () => {
  let work: string;
  let scratch: string;
  let run: FileRun;

  beforeAll(async () => {
    refuseToReinstall();
    work = mkdtempSync(join(tmpdir(), 'fluxlens-example-service-test-'));
    // The script's own TMPDIR: whatever it leaves behind shows up here.
    scratch = join(work, 'tmp');
    mkdirSync(scratch);
    run = await runFile('bash', [join(projectRoot, 'scripts/example-service')], {
      env: { ...process.env, TMPDIR: scratch },
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 300_000);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('reviews the example pull request through fluxlens serve and prints a failed check run', () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout, run.stderr).toContain(
      'Check run "fluxlens": completed, conclusion: failure',
    );
    // ingress-nginx's chart is not in the empty offline cache: that changed release is not
    // assessed, which the headline says before the findings.
    expect(run.stdout).toMatch(
      /^Title: DANGER: not assessed: 1 changed HelmRelease could not be rendered: chart not in the offline cache; Deletes Namespace whoami \(data loss\)/m,
    );
  });

  it('prints the comment fluxlens wrote on the pull request, with the verdict', () => {
    const comment = run.stdout.split('Comment by fluxlens-example[bot]:')[1] ?? '';
    expect(comment, run.stdout).toContain('### fluxlens: **DANGER**');
    expect(comment, run.stdout).toContain('StatefulSet/podinfo/podinfo-redis');
  });

  it('reports the first analysis latency from webhook acceptance to the completed check run', () => {
    expect(run.stdout).toMatch(/^First analysis: \d+\.\d s from the webhook's acceptance/m);
  });

  it('leaves no folder of its own behind', () => {
    // tsx keeps its compile cache in the temp folder; that one is not the example's.
    expect(readdirSync(scratch).filter((name) => !name.startsWith('tsx-'))).toEqual([]);
  });
});
