/**
 * One process started by ToolRunner.spawnServer, spoken to in lines: requests written to its
 * stdin, answers split from its stdout, its stderr drained (a full pipe would stall it), and
 * the requests it has been sent and not yet answered.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ServerExit, ServerProcess } from '../../tool-runner.js';

export interface ConnectionEvents<T> {
  /** One line of its stdout, without the newline. */
  line(text: string): void;
  /** It exited on its own or was killed by the runner's signal; `left` were unanswered. */
  exit(exit: ServerExit, left: T[]): void;
}

export class ServerConnection<T> {
  readonly #server: ServerProcess;
  readonly #pending = new Map<number, T>();
  #alive = true;
  #retired = false;

  constructor(server: ServerProcess, events: ConnectionEvents<T>) {
    this.#server = server;
    // Writing to a process that has died fails; its exit tells the rest.
    server.stdin.on('error', () => undefined);
    server.stderr.resume();
    splitLines(server, events.line);
    void server.exited.then((exit) => {
      this.#alive = false;
      const left = [...this.#pending.values()];
      this.#pending.clear();
      if (!this.#retired) events.exit(exit, left);
    });
  }

  get alive(): boolean {
    return this.#alive;
  }

  /** Killed on purpose, its requests handed back: its exit is nobody's concern. */
  get retired(): boolean {
    return this.#retired;
  }

  send(id: number, request: T, line: string): void {
    this.#pending.set(id, request);
    this.#server.stdin.write(line);
  }

  /** The request answered or given up under `id`, which is no longer waited for. */
  take(id: number): T | undefined {
    const request = this.#pending.get(id);
    this.#pending.delete(id);
    return request;
  }

  /** Kills the process and hands back what it had not answered. */
  retire(): T[] {
    this.#retired = true;
    this.#server.kill();
    const left = [...this.#pending.values()];
    this.#pending.clear();
    return left;
  }

  kill(): void {
    this.#server.kill();
  }

  /** Ends its input, lets it answer what it holds for `graceMs`, then kills it. */
  async close(graceMs: number): Promise<void> {
    this.#server.stdin.end();
    const timer = new AbortController();
    await Promise.race([
      this.#server.exited,
      delay(graceMs, undefined, { signal: timer.signal }).catch(() => undefined),
    ]);
    timer.abort();
    if (this.#alive) this.#server.kill();
    await this.#server.exited;
  }
}

/** Calls `line` with each newline-ended line of the process's stdout, decoded whole. */
function splitLines(server: ServerProcess, line: (text: string) => void): void {
  let partial: Buffer[] = [];
  server.stdout.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let end = chunk.indexOf(10); end !== -1; end = chunk.indexOf(10, start)) {
      partial.push(chunk.subarray(start, end));
      const text = Buffer.concat(partial).toString('utf8');
      partial = [];
      start = end + 1;
      line(text);
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
  });
}
