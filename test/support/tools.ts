/** Where the tests find a program: the tools folder first (as fluxlens finds its tools), then PATH. */
import { accessSync, constants } from 'node:fs';
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
