/**
 * The one place that runs external programs (kustomize, helm, git, flux-local): argv
 * arrays and never a shell, an allowlisted environment that never carries our tokens, a
 * timeout, and a cap on captured output.
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import { FluxlensError, SetupError } from './errors.js';

export type ToolName = 'kustomize' | 'helm' | 'git' | 'flux-local' | 'flux' | 'flate';

export class ToolError extends FluxlensError {
  constructor(
    readonly command: string,
    readonly exitCode: number | undefined,
    readonly stderrTail: string,
    reason: string,
  ) {
    super('tool', `${command} ${reason}${stderrTail ? `: ${stderrTail}` : ''}`);
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

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 64 * 1024 * 1024;
const STDERR_TAIL_CHARS = 2000;

export class ToolRunner {
  readonly #paths = new Map<ToolName, Promise<string>>();
  readonly #searchPath: string[];
  readonly #baseEnv: Record<string, string>;

  /** `baseEnv` is the allowlisted environment every tool inherits (see config.ts). */
  constructor(options: { toolsBinDir: string; path: string; baseEnv: Record<string, string> }) {
    const dirs = options.path.split(delimiter).filter(Boolean);
    this.#searchPath = [options.toolsBinDir, ...dirs];
    this.#baseEnv = options.baseEnv;
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
    const file = await this.resolve(tool);
    const env = { ...this.#baseEnv, PATH: this.#searchPath.join(delimiter), ...options.env };
    const command = `${tool} ${args.slice(0, 3).join(' ')}${args.length > 3 ? ' ...' : ''}`;
    const result = await execa(file, args, {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      env,
      extendEnv: false,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBuffer: options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT,
      reject: false,
      stripFinalNewline: false,
      ...(options.input !== undefined ? { input: options.input } : { stdin: 'ignore' as const }),
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    const stderr = typeof result.stderr === 'string' ? result.stderr : '';
    const tail = stderr.trim().slice(-STDERR_TAIL_CHARS);
    if (result.timedOut) throw new ToolError(command, undefined, tail, `timed out`);
    if (result.isMaxBuffer)
      throw new ToolError(command, undefined, '', `output exceeded the size cap`);
    if (result.isCanceled) throw new ToolError(command, undefined, '', 'was cancelled');
    if (result.exitCode !== 0) {
      throw new ToolError(
        command,
        result.exitCode,
        tail,
        `failed with exit code ${String(result.exitCode)}`,
      );
    }
    return { stdout: typeof result.stdout === 'string' ? result.stdout : '', stderr };
  }
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
