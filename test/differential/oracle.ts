/**
 * The Flux oracles of the differential tests: envsubst-oracle and values-oracle, Go programs
 * (test/differential/go) that run Flux's own substitution and values code, built into the
 * tools folder by `scripts/install-tools flux-oracles`. One process answers every case of a
 * test file, one JSON line each way per case.
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { projectRoot } from '../support/paths.js';
import { findTool } from '../support/tools.js';

export type OracleName = 'envsubst-oracle' | 'values-oracle';

/** What Flux's code said about one case. `panic`: it panicked, which Flux reports as a failure. */
export type OracleAnswer =
  | { ok: true; result: unknown }
  | { ok: false; error: string; panic: boolean };

const AnswerLine = z.object({
  result: z.unknown(),
  error: z.string().optional(),
  panic: z.boolean().optional(),
});

const SOURCES = join(projectRoot, 'test', 'differential', 'go');
const ASK_TIMEOUT_MS = 30_000;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.go$|^go\.(mod|sum)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * The digest scripts/install-tools stamps into the oracles: `sha256sum` of the module's
 * files (as `./path`, in byte order), hashed again. A binary with another digest was built
 * from other sources or other pinned versions.
 */
function sourcesDigest(): string {
  const listing = sourceFiles(SOURCES)
    .map((path) => `./${relative(SOURCES, path)}`)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => {
      const sum = createHash('sha256')
        .update(readFileSync(join(SOURCES, name)))
        .digest('hex');
      return `${sum}  ${name}\n`;
    })
    .join('');
  return createHash('sha256').update(listing).digest('hex').slice(0, 16);
}

/** What `binary --version` prints; empty when it does not run. */
function stampOf(binary: string): string {
  // Synchronous: a test file decides when it loads whether to run or to skip.
  const result = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return result.status === 0 ? result.stdout.trim() : '';
}

/**
 * The oracle binary, or why it cannot be used. Missing or stale, the tests skip locally
 * and fail under CI (CI=true), where scripts/test has just run scripts/install-tools.
 */
export function locateOracle(
  name: OracleName,
): { binary: string } | { missing: string; required: boolean } {
  const binary = findTool(name);
  const required = process.env['CI'] === 'true';
  const fix = 'run scripts/install-tools flux-oracles';
  if (binary === undefined) return { missing: `${name} is not installed (${fix})`, required };
  const want = sourcesDigest();
  const found = stampOf(binary);
  if (found !== want) {
    return {
      missing: `${binary} was built from other sources (${found || 'no version'}, want ${want}; ${fix})`,
      required,
    };
  }
  return { binary };
}

/**
 * One long-lived oracle process; `ask` sends a case and resolves with Flux's answer to it.
 * Answers come back in order, so one that never comes (a hang, a crash) ends the oracle:
 * every case still waiting fails with the reason and stderr's last lines.
 */
export class Oracle {
  readonly #binary: string;
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #waiting: Array<{ resolve: (line: string) => void; reject: (err: Error) => void }> = [];
  #stderr = '';
  #ended: Error | undefined;

  constructor(binary: string) {
    this.#binary = binary;
    this.#child = spawn(binary, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (chunk: string) => {
      this.#stderr = (this.#stderr + chunk).slice(-4000);
    });
    createInterface({ input: this.#child.stdout }).on('line', (line) => {
      this.#waiting.shift()?.resolve(line);
    });
    this.#child.on('error', (error) => this.#end(error.message));
    this.#child.stdin.on('error', (error) => this.#end(error.message));
    this.#child.on('close', (code, signal) => this.#end(signal ?? `exit ${code}`));
  }

  #end(why: string): void {
    if (this.#ended === undefined) {
      this.#ended = new Error(`${this.#binary} ended (${why}); stderr: ${this.#stderr}`);
      this.#child.kill('SIGKILL');
    }
    for (const waiter of this.#waiting.splice(0)) waiter.reject(this.#ended);
  }

  async ask(input: unknown): Promise<OracleAnswer> {
    if (this.#ended) throw this.#ended;
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => this.#end(`no answer within ${ASK_TIMEOUT_MS} ms`),
        ASK_TIMEOUT_MS,
      );
      this.#waiting.push({
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      });
      this.#child.stdin.write(`${JSON.stringify(input)}\n`);
    });
    const answer = AnswerLine.parse(JSON.parse(line));
    if (answer.error !== undefined) {
      return { ok: false, error: answer.error, panic: answer.panic === true };
    }
    return { ok: true, result: answer.result };
  }

  async close(): Promise<void> {
    if (this.#ended) return;
    const closed = new Promise<void>((resolve) => this.#child.once('close', () => resolve()));
    this.#child.stdin.end();
    await closed;
  }
}
