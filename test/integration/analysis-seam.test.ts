/**
 * The one analysis seam the CLI and the worker share: a request that is plain JSON gives the
 * same result as `fluxlens diff`, and cancelling an analysis mid-render stops its tools.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyze, parseAnalysisRequest, type AnalysisProgress } from '../../src/analysis/index.js';
import { CancelledError, UsageError, classify, errorMessage } from '../../src/errors.js';
import { runCli } from '../support/cli.js';
import { testMachine, testRunner } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

const APPS = 24;
let repo: TestRepo;

/** main: 24 apps, each its own Kustomization and ConfigMap; `pr` changes every ConfigMap. */
beforeAll(() => {
  const files = (color: string): RepoFiles => {
    const out: RepoFiles = { 'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod') };
    for (let i = 0; i < APPS; i++) {
      out[`clusters/prod/app-${i}.yaml`] = yamlStream(fluxKustomization(`app-${i}`, `./apps/${i}`));
      out[`apps/${i}/config.yaml`] = yamlStream({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `app-${i}`, namespace: 'apps' },
        data: { color },
      });
    }
    return out;
  };
  repo = makeRepo(files('red'), { git: true });
  repo.commit('base');
  execFileSync('git', ['-C', repo.dir, 'checkout', '-q', '-b', 'pr'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: repo.dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
  repo.write(files('blue'));
  repo.commit('pull request');
});

afterAll(() => repo.remove());

describe('analyze, called with a request from JSON', () => {
  it('gives the result the CLI prints for the same pull request', async () => {
    const payload = JSON.parse(
      JSON.stringify({ repoDir: repo.dir, base: 'main', head: 'pr', render: { offline: true } }),
    ) as unknown;
    const request = parseAnalysisRequest(payload);
    const { result, failOn, revisions } = await analyze(request, {
      runner: testRunner(),
      machine: testMachine,
    });
    expect(failOn).toBe('danger');
    expect(revisions.head.rev).toBe('pr');
    expect(result.summary.changed).toBe(APPS);

    const cli = await runCli([
      'diff',
      '--repo',
      repo.dir,
      '--base',
      'main',
      '--head',
      'pr',
      '--offline',
      '--format',
      'json',
    ]);
    expect(cli.code).toBe(0);
    const printed = JSON.parse(cli.stdout) as typeof result;
    expect({ ...printed, timings: {} }).toEqual({ ...result, timings: {} });
  });

  it.each([
    ['an engine fluxlens does not have', { engine: 'argo' }, /engine/],
    ['a misspelt render option', { render: { skipHlem: true } }, /skipHlem/],
    ['a base that is not a revision name', { base: 42 }, /base/],
  ])(
    'refuses a request with %s as a usage error naming the field, not worth a retry',
    (_case, fields, field) => {
      const err = catchError(() => parseAnalysisRequest({ repoDir: repo.dir, ...fields }));
      expect(err).toBeInstanceOf(UsageError);
      expect(classify(err)).toBe('usage');
      expect(errorMessage(err)).toMatch(field);
    },
  );
});

function catchError(run: () => unknown): unknown {
  try {
    run();
  } catch (err) {
    return err;
  }
  throw new Error('expected it to throw');
}

/** Our child processes running one of `names`, from /proc (Linux; cut at 15 characters). */
function toolChildren(names: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = /\(([^)]*)\)/.exec(stat)?.[1] ?? '';
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && names.includes(comm)) found.push(`${entry} ${comm}`);
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

describe('cancelling an analysis', () => {
  it('stops its kustomize processes within a second and rejects as cancelled', async () => {
    const controller = new AbortController();
    let rendered = 0;
    let afterAbort = 0;
    const outcome = analyze(parseAnalysisRequest({ repoDir: repo.dir, base: 'main', head: 'pr' }), {
      runner: testRunner(),
      machine: { ...testMachine, concurrency: 2 },
      signal: controller.signal,
      onProgress: (p: AnalysisProgress) => {
        if (p.stage !== 'render') return;
        rendered = p.done;
        if (controller.signal.aborted) afterAbort += 1;
      },
    });
    const settled = outcome.then(
      () => 'finished',
      (err: unknown) => err,
    );
    // Abort the moment a kustomize build of ours is running, after the first ones finished
    // (by kustomize, or by kustomize-server when it is installed).
    const kustomize = ['kustomize', 'kustomize-serve'];
    let running: string[] = [];
    while (running.length === 0 || rendered === 0) {
      const done = await Promise.race([settled, new Promise((r) => setTimeout(r, 10))]);
      expect(done).toBeUndefined();
      running = toolChildren(kustomize);
    }
    controller.abort();
    expect(await settled).toBeInstanceOf(CancelledError);
    const deadline = Date.now() + 1000;
    let left = toolChildren([...kustomize, 'helm', 'git']);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      left = toolChildren([...kustomize, 'helm', 'git']);
    }
    expect(left).toEqual([]);
    // Only the builds already running when it aborted may still report: no new one started.
    expect(afterAbort).toBeLessThanOrEqual(2);
  });
});
