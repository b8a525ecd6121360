/** Runs the fluxlens CLI in-process with captured output, as a user's shell would. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../src/cli/index.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** A chart cache of the test run's own, so no test reuses or fills the user's cache. */
const cacheDir = mkdtempSync(join(tmpdir(), 'fluxlens-cli-cache-'));

export async function runCli(
  argv: string[],
  options: { isTTY?: boolean; stdoutIsTTY?: boolean; env?: Record<string, string> } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    isTTY: options.isTTY ?? false,
    stdoutIsTTY: options.stdoutIsTTY ?? false,
    env: { ...process.env, FLUXLENS_CACHE_DIR: cacheDir, ...options.env },
  });
  return { code, stdout, stderr };
}
