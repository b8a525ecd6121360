/**
 * The one place that runs external programs (kustomize, helm, git, flux-local): argv
 * arrays and never a shell, an allowlisted environment that never carries our tokens, a
 * timeout, a cap on captured output, and an AbortSignal that stops the process.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { execa } from 'execa';
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TOOL_TIMEOUT_MS, type Config } from './config.js';
import { CancelledError, FluxlensError, SetupError } from './errors.js';

export type ToolName =
  | 'kustomize'
  | 'kustomize-server'
  | 'helm'
  | 'helm-server'
  | 'git'
  | 'flux-local'
  | 'flux'
  | 'flate';

export class ToolError extends FluxlensError {
  constructor(
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly stderrTail: string,
    reason: string,
    code: 'tool' | 'tool-timeout' = 'tool',
  ) {
    super(code, `${command} ${reason}${stderrTail ? `: ${stderrTail}` : ''}`);
    this.name = 'ToolError';
  }
}

export interface ToolRunOptions {
  cwd?: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
  /** Extra environment entries, added to the allowlisted ones. */
  env?: Record<string, string>;
  input?: string;
  signal?: AbortSignal;
}

export interface ToolResult {
  stdout: string;
  stderr: string;
}

/** A long-lived tool that spawnServer started: it answers requests on its stdin and stdout. */
export interface ServerProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Settles once the process has exited, however it ended; never rejects. */
  readonly exited: Promise<ServerExit>;
  /** SIGKILL to the process and to everything it started. */
  kill(): void;
}

export interface ServerExit {
  exitCode: number | undefined;
  signal: string | undefined;
  /** The runner's signal stopped it. */
  cancelled: boolean;
}

const STDERR_TAIL_CHARS = 2000;
/** After the signal's SIGTERM, a tool that is still running gets SIGKILL this much later. */
const FORCE_KILL_AFTER_MS = 500;

interface ToolRunnerOptions {
  toolsBinDir: string;
  path: string;
  baseEnv: Record<string, string>;
  signal?: AbortSignal | undefined;
}

export class ToolRunner {
  #paths = new Map<ToolName, Promise<string>>();
  readonly #searchPath: string[];
  readonly #options: ToolRunnerOptions;

  /**
   * `baseEnv` is the allowlisted environment every tool inherits (see config.ts); `signal`,
   * when given, stops every run of this runner (see withSignal).
   */
  constructor(options: ToolRunnerOptions) {
    this.#options = options;
    const dirs = options.path.split(delimiter).filter(Boolean);
    this.#searchPath = [options.toolsBinDir, ...dirs];
  }

  /**
   * The same runner, whose every run also stops when `signal` aborts: an analysis hands it
   * down once, and each kustomize, helm and git process it starts is killed on cancel.
   */
  withSignal(signal: AbortSignal): ToolRunner {
    const runner = new ToolRunner({
      ...this.#options,
      signal: combineSignals(this.#options.signal, signal),
    });
    runner.#paths = this.#paths;
    return runner;
  }

  /** What stops this runner's work, for waits that are not a tool's run. */
  get signal(): AbortSignal | undefined {
    return this.#options.signal;
  }

  /** The directories searched for tools, in order; tools that call tools get this PATH. */
  get searchPath(): readonly string[] {
    return this.#searchPath;
  }

  /** Absolute path of a tool, or a SetupError that says how to install it. */
  resolve(tool: ToolName): Promise<string> {
    let found = this.#paths.get(tool);
    if (!found) {
      found = findExecutable(tool, this.#searchPath);
      this.#paths.set(tool, found);
    }
    return found;
  }

  async run(
    tool: ToolName,
    args: readonly string[],
    options: ToolRunOptions = {},
  ): Promise<ToolResult> {
    const signal = combineSignals(this.#options.signal, options.signal);
    if (signal?.aborted) throw new CancelledError(`${tool} was not started: cancelled`);
    const file = await this.resolve(tool);
    const command = describeCommand(tool, args);
    const child = execa(file, args, {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      env: this.#env(options.env),
      extendEnv: false,
      timeout: options.timeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS,
      maxBuffer: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES,
      reject: false,
      stripFinalNewline: false,
      ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
      // A cancellable run leads its own process group, so a cancel also stops what the tool
      // started (git's remote helpers, flux-local's kustomize and helm) and the pipes close.
      ...(signal
        ? { cancelSignal: signal, forceKillAfterDelay: FORCE_KILL_AFTER_MS, detached: true }
        : {}),
    });
    const killGroup = () => killProcessGroup(child.pid);
    signal?.addEventListener('abort', killGroup, { once: true });
    const result = await child.finally(() => signal?.removeEventListener('abort', killGroup));
    if (signal && (result.timedOut || result.isMaxBuffer)) killGroup();
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    const tail = stderrTail(stderr);
    if (result.timedOut) {
      throw new ToolError(command, undefined, tail, `timed out`, 'tool-timeout');
    }
    if (result.isMaxBuffer)
      throw new ToolError(command, undefined, '', `output exceeded the size cap`);
    if (result.isCanceled) throw new CancelledError(`${command} was cancelled`);
    if (result.exitCode !== 0) {
      // A tool that crashed (SIGSEGV) or was killed from outside has a signal, no exit code.
      const how = result.signal
        ? `was killed by ${result.signal}`
        : `failed with exit code ${String(result.exitCode)}`;
      throw new ToolError(command, result.exitCode, tail, how);
    }
    return { stdout: typeof result.stdout === 'string' ? result.stdout : '', stderr };
  }

  /**
   * Starts a tool that serves many requests over its stdin and stdout (kustomize-server),
   * found, started (argv only) and given the environment as run() does, leading a process
   * group of its own that the runner's signal kills. It has no timeout and no output cap:
   * the caller bounds each request and kills the process when one overruns. It stays until
   * killed or its stdin ends.
   */
  async spawnServer(tool: ToolName, args: readonly string[]): Promise<ServerProcess> {
    const signal = this.#options.signal;
    if (signal?.aborted) throw new CancelledError(`${tool} was not started: cancelled`);
    const file = await this.resolve(tool);
    const child = execa(file, args, {
      env: this.#env(),
      extendEnv: false,
      buffer: false,
      reject: false,
      stdin: 'pipe',
      detached: true,
      ...(signal ? { cancelSignal: signal, forceKillAfterDelay: FORCE_KILL_AFTER_MS } : {}),
    });
    let running = true;
    // Once it has exited, its process group id may name another group.
    const kill = () => running && killProcessGroup(child.pid);
    signal?.addEventListener('abort', kill, { once: true });
    const exited = child.then((result) => {
      running = false;
      signal?.removeEventListener('abort', kill);
      return { exitCode: result.exitCode, signal: result.signal, cancelled: result.isCanceled };
    });
    return { stdin: child.stdin, stdout: child.stdout, stderr: child.stderr, exited, kill };
  }

  /** The allowlisted environment, with the tools first on PATH, and `extra` on top. */
  #env(extra?: Record<string, string>): Record<string, string> {
    return { ...this.#options.baseEnv, PATH: this.#searchPath.join(delimiter), ...extra };
  }
}

/** The part of a tool's stderr that its ToolError carries. */
export function stderrTail(stderr: string): string {
  return stderr.trim().slice(-STDERR_TAIL_CHARS);
}

/** How errors name a run: the tool and its first three arguments. */
export function describeCommand(tool: ToolName, args: readonly string[]): string {
  return `${tool} ${args.slice(0, 3).join(' ')}${args.length > 3 ? ' ...' : ''}`;
}

/** SIGKILL to a whole process group; nothing to do when it is already gone. */
function killProcessGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // the group has already exited
  }
}

/** The runner for this machine: tools from the tools folder first, then PATH. */
export function createToolRunner(config: Pick<Config, 'toolsBinDir' | 'path' | 'toolEnv'>) {
  return new ToolRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
}

function combineSignals(
  a: AbortSignal | undefined,
  b: AbortSignal | undefined,
): AbortSignal | undefined {
  if (a && b) return AbortSignal.any([a, b]);
  return a ?? b;
}

async function findExecutable(tool: ToolName, dirs: readonly string[]): Promise<string> {
  for (const dir of dirs) {
    const candidate = join(dir, tool);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  throw new SetupError(`${tool} not found (run scripts/install-tools, or put it on PATH)`);
}
