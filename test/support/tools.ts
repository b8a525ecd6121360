/** Where the tests find a program: the tools folder first (as fluxlens finds its tools), then PATH. */
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { loadConfig } from '../../src/config.js';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The full path of `name`, or undefined when neither the tools folder nor PATH has it. */
export function findTool(name: string): string | undefined {
  const config = loadConfig();
  const dirs = [config.toolsBinDir, ...config.path.split(delimiter).filter(Boolean)];
  return dirs.map((dir) => join(dir, name)).find(executable);
}

/** A tools folder whose kustomize is a test's own script in front of the real one. */
export interface WrappedKustomize {
  /** Pass as FLUXLENS_TOOLS_DIR, with FLUXLENS_KUSTOMIZE_SERVER=off (or a runner's toolsBinDir: `bin`). */
  dir: string;
  bin: string;
  remove(): void;
}

/**
 * Every real tool but kustomize, linked, and as kustomize the shell script `script` writes
 * given the real kustomize's path and this folder (for files the script and the test share).
 */
export function wrappedKustomizeTools(
  script: (kustomize: string, dir: string) => string,
): WrappedKustomize {
  const kustomize = findTool('kustomize');
  if (kustomize === undefined) throw new Error('kustomize not found: run scripts/install-tools');
  const real = loadConfig().toolsBinDir;
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-tools-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of existsSync(real) ? readdirSync(real) : []) {
    if (name !== 'kustomize') symlinkSync(join(real, name), join(bin, name));
  }
  writeFileSync(join(bin, 'kustomize'), script(kustomize, dir));
  chmodSync(join(bin, 'kustomize'), 0o755);
  return { dir, bin, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
