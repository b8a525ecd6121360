/** How a tool run ends, in the words its error gives: exit codes, crashes, the size cap. */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolError, ToolRunner } from '../../src/tool-runner.js';

let bin: string;

/** A `kustomize` in a tools folder of the test's own, running `script`. */
function tool(script: string): ToolRunner {
  writeFileSync(join(bin, 'kustomize'), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, 'kustomize'), 0o755);
  return new ToolRunner({ toolsBinDir: bin, path: '/usr/bin:/bin', baseEnv: {} });
}

const failure = (runner: ToolRunner) =>
  runner.run('kustomize', ['build', '.']).then(
    () => undefined,
    (err: unknown) => err,
  );

beforeAll(() => {
  bin = mkdtempSync(join(tmpdir(), 'fluxlens-tools-'));
});
afterAll(() => rmSync(bin, { recursive: true, force: true }));

describe('a tool run that fails', () => {
  it('gives the exit code and the end of stderr', async () => {
    const err = await failure(tool('echo "Error: no such file" >&2; exit 3'));
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).message).toBe(
      'kustomize build . failed with exit code 3: Error: no such file',
    );
  });

  it('names the signal a crashed tool died of', async () => {
    const err = await failure(tool('kill -SEGV $$'));
    expect(err).toBeInstanceOf(ToolError);
    expect((err as ToolError).message).toBe('kustomize build . was killed by SIGSEGV');
  });

  it('stops a tool whose output passes the cap', async () => {
    const runner = tool('head -c 100000 /dev/zero');
    const err = await runner.run('kustomize', ['build'], { maxOutputBytes: 1000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as ToolError).message).toBe('kustomize build output exceeded the size cap');
  });
});
