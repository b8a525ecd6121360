/**
 * A tool run through one resident process of ours (tools/kustomize-server, tools/helm-server)
 * instead of one process per run: the same output, the same error text, and the tool
 * runner's bounds for each run. A run that overruns its timeout or is cancelled fails as the
 * binary's run would, and the process is killed with it (a stuck run holds no other): the
 * runs it was serving go to a fresh one. A run the server cannot finish (it panicked or
 * died) runs the binary instead, which says how that run fails.
 */
import { z } from 'zod';
import { CancelledError, classify } from '../../errors.js';
import {
  ToolError,
  describeCommand,
  stderrTail,
  type ServerExit,
  type ToolName,
  type ToolRunOptions,
  type ToolRunner,
} from '../../tool-runner.js';
import { ServerConnection } from './server-connection.js';

/** One run: its bounds, and how the binary would run it. */
export interface ServerRun {
  /** The request's fields (tools/<server>/main.go); the id is added. */
  request: Record<string, unknown>;
  /** The binary's arguments: how errors name the run, and what runs when the server cannot. */
  args: string[];
  timeoutMs: number;
  maxOutputBytes: number;
  /** The binary's working folder and extra environment, when the server cannot serve. */
  binary?: Pick<ToolRunOptions, 'cwd' | 'env'>;
  /** Cancels this run, as the runner's own signal cancels every run. */
  signal?: AbortSignal | undefined;
}

/** One answer line of a server: what the binary prints, or how it fails. */
const Answer = z.object({
  id: z.number(),
  yaml: z.string().optional(),
  error: z.string().optional(),
  overCap: z.boolean().optional(),
  panic: z.string().optional(),
});
type Answer = z.infer<typeof Answer>;

/** After this many unexpected exits the server is not started again: runs use the binary. */
const MAX_CRASHES = 3;
/** How long close() lets the process finish on its own before killing it. */
const CLOSE_GRACE_MS = 2_000;

interface Pending {
  id: number;
  /** The request, one JSON line, sent again if the run moves to a fresh process. */
  line: string;
  /** How errors name it: as the binary's run it stands for. */
  command: string;
  run: ServerRun;
  resolve: (yaml: string) => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
  unlisten?: () => void;
  connection?: ServerConnection<Pending> | undefined;
  done: boolean;
}

export interface ToolServerEvents {
  /** A run the server could not finish went to the binary (it panicked or died). */
  fellBack?: (command: string, why: string) => void;
}

export class ToolServer {
  readonly #runner: ToolRunner;
  readonly #server: ToolName;
  readonly #binaryName: ToolName;
  readonly #events: ToolServerEvents;
  #live: ServerConnection<Pending> | undefined;
  #starting: Promise<ServerConnection<Pending>> | undefined;
  #nextId = 1;
  #crashes = 0;
  #closed = false;

  /** Nothing starts until warm() or the first run; `runner`'s signal stops the process. */
  constructor(
    runner: ToolRunner,
    tools: { server: ToolName; binary: ToolName },
    events: ToolServerEvents = {},
  ) {
    this.#runner = runner;
    this.#server = tools.server;
    this.#binaryName = tools.binary;
    this.#events = events;
  }

  /**
   * Starts the process ahead of the first run, so that its start overlaps the render's
   * other work. A start that fails is tried again by the first run, which then runs the
   * binary as it would have.
   */
  warm(): void {
    if (!this.available) return;
    this.#connect().catch(() => undefined);
  }

  /** False once closed, or after the process died too often: runs go to the binary. */
  get available(): boolean {
    return !this.#closed && this.#crashes < MAX_CRASHES;
  }

  /** What the binary would print on stdout for `run`, or the ToolError its run would fail with. */
  run(run: ServerRun): Promise<string> {
    if (!this.available) return this.#binary(run);
    const name = this.#binaryName;
    if (run.signal?.aborted)
      return Promise.reject(new CancelledError(`${name} was not started: cancelled`));
    return new Promise<string>((resolve, reject) => {
      const id = this.#nextId++;
      const line = `${JSON.stringify({ ...run.request, id })}\n`;
      const command = describeCommand(name, run.args);
      const pending: Pending = { id, line, command, run, resolve, reject, done: false };
      pending.timer = setTimeout(() => this.#stop(pending, timedOut(command)), run.timeoutMs);
      const signal = run.signal;
      if (signal) {
        const onAbort = () => this.#stop(pending, new CancelledError(`${command} was cancelled`));
        signal.addEventListener('abort', onAbort, { once: true });
        pending.unlisten = () => signal.removeEventListener('abort', onAbort);
      }
      void this.#send(pending);
    });
  }

  /**
   * Stops the process once it has answered what it was sent (killing it after a grace
   * period); runs asked for afterwards use the binary.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    const connection = this.#live;
    this.#live = undefined;
    if (connection?.alive && !connection.retired) await connection.close(CLOSE_GRACE_MS);
  }

  async #send(pending: Pending): Promise<void> {
    let connection: ServerConnection<Pending>;
    try {
      connection = await this.#connect();
    } catch (err) {
      if (classify(err) === 'cancelled')
        return this.#finish(pending, {
          error: new CancelledError(`${this.#binaryName} was not started: cancelled`),
        });
      return this.#viaBinary(pending, `${this.#server} did not start`);
    }
    if (pending.done) return;
    if (!connection.alive || connection.retired) {
      if (!this.available) return this.#viaBinary(pending, `${this.#server} stopped`);
      return this.#send(pending);
    }
    pending.connection = connection;
    connection.send(pending.id, pending, pending.line);
  }

  #connect(): Promise<ServerConnection<Pending>> {
    const live = this.#live;
    if (live?.alive && !live.retired) return Promise.resolve(live);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<ServerConnection<Pending>> {
    const server = await this.#runner.spawnServer(this.#server, []);
    const connection: ServerConnection<Pending> = new ServerConnection(server, {
      line: (text) => this.#answered(connection, text),
      exit: (exit, left) => this.#exited(connection, exit, left),
    });
    this.#live = connection;
    return connection;
  }

  #answered(connection: ServerConnection<Pending>, text: string): void {
    let answer: Answer;
    try {
      answer = Answer.parse(JSON.parse(text));
    } catch {
      // Not an answer: nothing it says can be trusted, and its exit sends its runs on.
      connection.kill();
      return;
    }
    const pending = connection.take(answer.id);
    if (pending === undefined) return; // it timed out or was cancelled meanwhile
    const { command, run } = pending;
    if (answer.panic !== undefined)
      return this.#viaBinary(pending, `${this.#server} panicked: ${answer.panic}`);
    if (answer.overCap || (answer.yaml !== undefined && answer.yaml.length > run.maxOutputBytes))
      return this.#finish(pending, { error: overCap(command) });
    if (answer.yaml !== undefined) return this.#finish(pending, { yaml: answer.yaml });
    const stderr = stderrTail(answer.error ?? '');
    this.#finish(pending, {
      error: new ToolError(command, 1, stderr, 'failed with exit code 1'),
    });
  }

  /** A run that timed out or was cancelled fails, and takes its process down with it. */
  #stop(pending: Pending, error: ToolError | CancelledError): void {
    if (pending.done) return;
    const connection = pending.connection;
    this.#finish(pending, { error });
    if (connection === undefined || connection.retired) return;
    if (this.#live === connection) this.#live = undefined;
    // The others lose what they had done and start over on a fresh process, on their own clocks.
    for (const other of connection.retire()) {
      other.connection = undefined;
      void this.#send(other);
    }
  }

  #exited(connection: ServerConnection<Pending>, exit: ServerExit, left: Pending[]): void {
    if (this.#live === connection) this.#live = undefined;
    if (exit.cancelled) {
      for (const pending of left)
        this.#finish(pending, { error: new CancelledError(`${pending.command} was cancelled`) });
      return;
    }
    if (!this.#closed) this.#crashes++;
    const how = exit.signal ? `was killed by ${exit.signal}` : `exited with ${exit.exitCode}`;
    for (const pending of left) this.#viaBinary(pending, `${this.#server} ${how}`);
  }

  #finish(pending: Pending, outcome: { yaml: string } | { error: unknown }): void {
    if (!this.#release(pending)) return;
    if ('yaml' in outcome) pending.resolve(outcome.yaml);
    else pending.reject(outcome.error);
  }

  /** The run the server could not finish, by the binary on its full clock. */
  #viaBinary(pending: Pending, why: string): void {
    if (!this.#release(pending)) return;
    this.#events.fellBack?.(pending.command, why);
    this.#binary(pending.run).then(pending.resolve, pending.reject);
  }

  /** Stops waiting for a run's answer; false when it was already settled. */
  #release(pending: Pending): boolean {
    if (pending.done) return false;
    pending.done = true;
    clearTimeout(pending.timer);
    pending.unlisten?.();
    pending.connection?.take(pending.id);
    return true;
  }

  async #binary(run: ServerRun): Promise<string> {
    const { stdout } = await this.#runner.run(this.#binaryName, run.args, {
      ...run.binary,
      timeoutMs: run.timeoutMs,
      maxOutputBytes: run.maxOutputBytes,
      ...(run.signal ? { signal: run.signal } : {}),
    });
    return stdout;
  }
}

/** The error ToolRunner.run gives a run that times out. */
function timedOut(command: string): ToolError {
  return new ToolError(command, undefined, '', 'timed out', 'tool-timeout');
}

/** The error ToolRunner.run gives a run whose output passes the cap. */
function overCap(command: string): ToolError {
  return new ToolError(command, undefined, '', 'output exceeded the size cap');
}
