/** Temporary folders of one test file, removed once its tests are done. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';

/** Call once at the top of a test file: its afterAll removes every folder handed to it. */
export function scratchDirs() {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  return {
    /** A fresh folder under the temporary directory, its name starting with `prefix`. */
    tempDir(prefix: string): string {
      const dir = mkdtempSync(join(tmpdir(), prefix));
      dirs.push(dir);
      return dir;
    },
    /** A folder made elsewhere, removed with the rest. */
    removeAfterAll(dir: string): void {
      dirs.push(dir);
    },
  };
}
