/**
 * Issue 11, point 11: `fluxlens render` and `fluxlens diff` stopped by SIGTERM or SIGINT
 * while kustomize runs, as a real process. The tool is stopped, every scratch folder is
 * removed before the process exits, and the exit says which signal stopped it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../support/paths.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  yamlStream,
  type TestRepo,
} from '../support/repo.js';
import { slowKustomizeTools, type SlowTools } from '../support/slow-tools.js';

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((clean) => clean()));

const configMap = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: apps\ndata:\n  a: "1"\n`;

function fleet(): TestRepo {
  const repo = makeRepo(
    {
      'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
      'clusters/prod/apps.yaml': yamlStream(fluxKustomization('apps', './apps')),
      'apps/cm.yaml': configMap('apps'),
    },
    { git: true },
  );
  cleanups.push(() => repo.remove());
  return repo;
}

interface Stopped {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** What the process left in its temporary folder, apart from tsx's own cache. */
  leftovers: string[];
  /** The kustomize builds it started that still run a moment after it exited. */
  stillBuilding: number[];
}

/** Runs fluxlens from the sources, sends `signal` once kustomize builds, and waits for the end. */
async function stopWhileBuilding(
  args: string[],
  signal: NodeJS.Signals,
  tools: SlowTools,
): Promise<Stopped> {
  const temp = mkdtempSync(join(tmpdir(), 'fluxlens-signal-test-'));
  cleanups.push(() => rmSync(temp, { recursive: true, force: true }));
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(projectRoot, 'test/support/fluxlens-process.ts'), ...args],
    {
      cwd: projectRoot,
      env: {
        ...process.env,
        TMPDIR: temp,
        FLUXLENS_TOOLS_DIR: tools.dir,
        // Every build is then a process of this folder's kustomize, which never finishes.
        FLUXLENS_KUSTOMIZE_SERVER: 'off',
        FLUXLENS_CACHE_DIR: join(temp, 'cache'),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let running = true;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, sig) => {
      running = false;
      resolve({ code, signal: sig });
    }),
  );
  const before = tools.builds().length;
  for (let waited = 0; tools.builds().length === before; waited += 100) {
    if (!running || waited > 50_000) throw new Error(`kustomize never started:\n${stderr}`);
    await sleep(100);
  }
  child.kill(signal);
  const end = await exited;
  const leftovers = readdirSync(temp).filter((name) => !/^tsx-|^cache$/.test(name));
  const builds = tools.builds().slice(before);
  for (let waited = 0; builds.some(isRunning) && waited < 5_000; waited += 100) await sleep(100);
  return { ...end, stderr, leftovers, stillBuilding: builds.filter(isRunning) };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('fluxlens stopped by a signal while kustomize runs', () => {
  const tools = slowKustomizeTools();
  cleanups.push(() => tools.remove());

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('render on %s leaves no scratch folder and exits %i', async (signal, exitCode) => {
    const repo = fleet();
    const stopped = await stopWhileBuilding(
      ['render', '--repo', repo.dir, '--path', 'clusters/prod'],
      signal,
      tools,
    );
    expect(stopped.leftovers).toEqual([]);
    expect(stopped.stillBuilding).toEqual([]);
    expect(stopped.stderr).toContain(`fluxlens: stopped by ${signal}\n`);
    expect(stopped.stderr).not.toMatch(/cancelled/);
    expect(stopped).toMatchObject({ code: exitCode, signal: null });
  });

  it('diff on SIGTERM leaves no scratch folder and exits 143', async () => {
    const repo = fleet();
    const base = repo.commit('base');
    repo.write({ 'apps/cm.yaml': configMap('apps-changed') });
    const head = repo.commit('head');
    const stopped = await stopWhileBuilding(
      ['diff', '--repo', repo.dir, '--base', base, '--head', head],
      'SIGTERM',
      tools,
    );
    expect(stopped.leftovers).toEqual([]);
    expect(stopped.stillBuilding).toEqual([]);
    expect(stopped.stderr).toContain('fluxlens: stopped by SIGTERM\n');
    expect(stopped).toMatchObject({ code: 143, signal: null });
  });
});
