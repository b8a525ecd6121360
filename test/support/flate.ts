/**
 * flate (github.com/home-operations/flate), another Flux renderer, run as a test oracle:
 * only its binary is run, never its code. scripts/install-tools builds it into the tools
 * folder; tests that need it skip when it is not installed.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Manifest } from '../../src/model/render.js';
import { findTool } from './tools.js';

/** The flate binary: the tools folder first (as fluxlens finds its tools), then PATH. */
export function findFlate(): string | undefined {
  return findTool('flate');
}

export const flateBinary = findFlate();
export const flateInstalled = flateBinary !== undefined;

export interface FlateRender {
  /** Every object flate rendered, Secrets and CRDs included. */
  manifests: Manifest[];
  /** flate exits non-zero when any Kustomization or HelmRelease failed. */
  exitCode: number | null;
  stderr: string;
  /** The command line, for messages. */
  command: string;
}

/**
 * `flate build all` of one cluster folder of a fixture repository. flate anchors
 * spec.path at the nearest folder holding `.git` (else at --path itself), so the fixture
 * is copied and `git init`ed; no commit is needed, flate reads the working tree. Its
 * caches go to a private folder, so no run reuses another's output.
 */
export function renderWithFlate(fixtureDir: string, clusterPath: string): FlateRender {
  if (flateBinary === undefined) throw new Error('flate is not installed');
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-flate-'));
  try {
    const repo = join(work, 'repo');
    cpSync(fixtureDir, repo, { recursive: true });
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: work,
      XDG_CACHE_HOME: join(work, 'cache'),
      GIT_CONFIG_NOSYSTEM: '1',
      // The failure report on stderr is read back: no colour codes in it.
      NO_COLOR: '1',
    };
    const git = spawnSync('git', ['init', '-q', '-b', 'main', repo], { env, encoding: 'utf8' });
    if (git.status !== 0) throw new Error(`git init failed: ${git.stderr}`);
    const args = [
      'build',
      'all',
      '--path',
      clusterPath,
      '--output',
      'json',
      '--no-progress',
      '--log-level',
      'error',
      '--skip-secrets=false',
      '--skip-crds=false',
      '--cache-dir',
      join(work, 'flate-cache'),
      '--helm-render-cache-mb',
      '0',
      '--kustomize-render-cache-mb',
      '0',
    ];
    const run = spawnSync(flateBinary, args, {
      cwd: repo,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: 120_000,
    });
    if (run.error) throw run.error;
    const command = `flate ${args.join(' ')}`;
    let manifests: unknown;
    try {
      manifests = JSON.parse(run.stdout || '[]');
    } catch (err) {
      throw new Error(`${command}: unreadable output (${String(err)}): ${run.stderr}`);
    }
    if (!Array.isArray(manifests)) throw new Error(`${command}: expected a JSON array`);
    return {
      manifests: manifests as Manifest[],
      exitCode: run.status,
      stderr: run.stderr,
      command,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
