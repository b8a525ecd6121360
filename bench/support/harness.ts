/**
 * What the benchmarks share: flags and --help from one table, cleanup on every exit path, the
 * exit code (0 targets met, 1 missed, 2 failed), and a `fluxlens serve` started for a run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import {
  createTestAppKey,
  startGitHubEmulator,
  type GitHubEmulator,
} from '../../test/support/github-emulator.js';
import { projectRoot } from '../../test/support/paths.js';
import { freePort } from '../../test/support/service.js';

/** Each option: its default (undefined: none) and what it sets. */
type OptionTable = Readonly<Record<string, readonly [string | undefined, string]>>;

/**
 * Parses this process's arguments against `table` (every option takes a value) plus
 * `--help`; `flag` reads an option ('' when unset), `usage` is the `--help` text.
 */
export function benchFlags<T extends OptionTable>(table: T, command: string) {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean' } };
  for (const [name, [value]] of Object.entries(table)) {
    options[name] = { type: 'string', ...(value === undefined ? {} : { default: value }) };
  }
  const { values } = parseArgs({ options });
  const width = Math.max(...Object.keys(table).map((name) => name.length)) + 2;
  return {
    help: values['help'] === true,
    flag: (name: keyof T & string): string => {
      const value = values[name];
      return typeof value === 'string' ? value : '';
    },
    usage: Object.entries(table).reduce(
      (text, [name, [value, doc]]) =>
        `${text}\n  --${name.padEnd(width)} ${doc}${value ? ` (${value})` : ''}`,
      command,
    ),
  };
}

/** What was started, undone in reverse order on every exit path; one failing step skips none. */
const cleanups: (() => unknown)[] = [];

export function onCleanUp(step: () => unknown): void {
  cleanups.push(step);
}

async function cleanUp(): Promise<void> {
  for (const step of cleanups.splice(0).reverse()) {
    await Promise.resolve()
      .then(step)
      .catch(() => undefined);
  }
}

/** Prints each missed target as `MISSED: ...`; the exit code, 1 when any was missed. */
export function reportMissed(missed: readonly string[]): number {
  for (const m of missed) console.log(`MISSED: ${m}`);
  if (missed.length === 0) console.log('all targets met');
  return missed.length === 0 ? 0 : 1;
}

/** Runs `main` for its exit code: 2 when it throws, 130 on Ctrl-C; cleans up either way. */
export async function runBench(main: () => Promise<number>): Promise<void> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
  }
  try {
    process.exitCode = await main();
  } catch (err) {
    console.error(err);
    process.exitCode = 2;
  } finally {
    await cleanUp();
  }
}

export interface ServeOptions {
  /** Its work folder's prefix under the temporary directory. */
  name: string;
  secret: string;
  /** Environment beside the port, secret, GitHub App and cache folder. */
  env: Record<string, string>;
  nodeFlags?: string[];
  installation?: { id: number; repositories: string[] };
  /** SIGTERM and this long to finish before SIGKILL; SIGKILL at once when unset. */
  graceMs?: number;
}

export interface ServeProcess {
  emulator: GitHubEmulator;
  port: number;
  pid: number;
  /** Everything it has written so far. */
  log: () => string;
  stop: () => Promise<void>;
}

const BENCH_APP_ID = 1001;

/**
 * `fluxlens serve` from the sources against the GitHub emulator, its output in a file of its
 * work folder; stopped, and the folder removed, on every exit path. Not waited for.
 */
export async function spawnServe(options: ServeOptions): Promise<ServeProcess> {
  const work = mkdtempSync(join(tmpdir(), options.name));
  onCleanUp(() => rmSync(work, { recursive: true, force: true }));
  const key = createTestAppKey();
  const app = { id: BENCH_APP_ID, slug: 'fluxlens-bench', publicKey: key.publicKey };
  const emulator = await startGitHubEmulator({ app });
  onCleanUp(() => emulator.close());
  if (options.installation) emulator.seedInstallation(options.installation);
  emulator.allow('GET', '/app');
  const port = await freePort();
  const logPath = join(work, 'serve.log');
  const logFd = openSync(logPath, 'w');
  const entry = join(projectRoot, 'test/support/fluxlens-process.ts');
  const argv = [...(options.nodeFlags ?? []), '--import', 'tsx', entry, 'serve'];
  const child = spawn(process.execPath, argv, {
    cwd: projectRoot,
    stdio: ['ignore', logFd, logFd],
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? work,
      FLUXLENS_PORT: String(port),
      FLUXLENS_HOST: '127.0.0.1',
      FLUXLENS_WEBHOOK_SECRET: options.secret,
      FLUXLENS_GITHUB_APP_ID: String(BENCH_APP_ID),
      FLUXLENS_GITHUB_PRIVATE_KEY: key.privateKey,
      FLUXLENS_GITHUB_API_URL: emulator.apiUrl,
      FLUXLENS_CACHE_DIR: join(work, 'cache'),
      ...options.env,
    },
  });
  closeSync(logFd);
  const stop = () => stopProcess(child, options.graceMs);
  onCleanUp(stop);
  const log = () => readFileSync(logPath, 'utf8');
  return { emulator, port, pid: child.pid ?? 0, log, stop };
}

async function stopProcess(child: ChildProcess, graceMs: number | undefined): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((done) => child.once('exit', done));
  child.kill(graceMs === undefined ? 'SIGKILL' : 'SIGTERM');
  const timer =
    graceMs === undefined ? undefined : setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
