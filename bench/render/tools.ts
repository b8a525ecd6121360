/**
 * The programs a run compares and how each is started: fluxlens from a private build of
 * this checkout (a plain `node` process, no TypeScript loader in the timings), or from the
 * sources through tsx when asked; flate and flux-local from the tools folder when there.
 */
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const TOOLS_BIN = join(homedir(), '.fluxlens', 'tools', 'bin');
export const TOOL_PATH = [TOOLS_BIN, process.env['PATH'] ?? ''].join(delimiter);

export type ToolName = 'fluxlens' | 'flate' | 'flux-local';

/** How to start fluxlens: `node [...prefix] <fluxlens args>`. */
export interface FluxlensLauncher {
  prefix: string[];
  describe: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** A program's full path: the tools folder first, then PATH. */
export function findTool(name: string): string | undefined {
  return TOOL_PATH.split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, name))
    .find(executable);
}

export function toolVersion(file: string, args: string[]): string {
  try {
    const out = execFileSync(file, args, {
      encoding: 'utf8',
      stdio: 'pipe',
      env: { ...process.env, PATH: TOOL_PATH },
    });
    return out.trim().split('\n')[0] ?? '';
  } catch {
    return 'unknown';
  }
}

/**
 * fluxlens as users run it: the CLI bundle of rolldown.config.js (what bin/fluxlens.js
 * loads), built from the sources into `dist/cli`, with node_modules linked beside it for
 * the packages the bundle leaves out.
 */
export function buildFluxlens(dist: string, log: (line: string) => void): FluxlensLauncher {
  mkdirSync(dist, { recursive: true });
  const out = join(dist, 'cli');
  try {
    execFileSync(
      join(ROOT, 'node_modules', '.bin', 'rolldown'),
      ['-c', 'rolldown.config.js', '--dir', out],
      { cwd: ROOT, stdio: 'pipe', encoding: 'utf8' },
    );
  } catch (err) {
    const text = `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''}`;
    log(`rolldown failed:\n${text.split('\n').slice(0, 10).join('\n')}`);
  }
  const cli = join(out, 'index.js');
  if (!existsSync(cli)) throw new Error(`no CLI in the build at ${cli}`);
  // Made anew each time: a link left by another checkout may point anywhere, or nowhere.
  const modules = join(dist, 'node_modules');
  rmSync(modules, { force: true });
  symlinkSync(join(ROOT, 'node_modules'), modules);
  return fromModule(cli, `node ${out}`);
}

/** fluxlens from the sources: tsx compiles on every start (1 to 3 s of each run). */
export function fluxlensFromSources(): FluxlensLauncher {
  // By file URL: a run's working folder is a checkout with no node_modules to resolve from.
  const tsx = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return fromModule(join(ROOT, 'src', 'cli', 'index.ts'), 'node --import tsx (sources)', [
    '--import',
    tsx,
  ]);
}

/** bin/fluxlens.js's CLI branch, inline: import the module, run main on the arguments. */
function fromModule(module: string, describe: string, node: string[] = []): FluxlensLauncher {
  const code = `const { main } = await import(${JSON.stringify(module)}); process.exitCode = await main(process.argv.slice(1));`;
  return { prefix: [...node, '--input-type=module', '-e', code, '--'], describe };
}

export const DEFAULT_DIST = join(tmpdir(), 'fluxlens-bench-dist');
