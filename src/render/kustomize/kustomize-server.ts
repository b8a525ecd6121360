/**
 * `kustomize build` through one kustomize-server process (tools/kustomize-server) instead
 * of one kustomize process per build: the same output, the same error text, and the tool
 * runner's bounds for each build. A build that overruns its timeout or is cancelled fails as
 * a kustomize run would, and the process is killed with it (a stuck build holds no other):
 * the builds it was serving go to a fresh one. A build the server cannot finish (it
 * panicked or died) runs the kustomize binary instead, which says how that build fails.
 */
import { z } from 'zod';
import { CancelledError, classify } from '../../errors.js';
import {
  ToolError,
  describeCommand,
  stderrTail,
  type ServerExit,
  type ToolRunner,
} from '../../tool-runner.js';
import { kustomizeBuildArgs, type KustomizeRunOptions } from './build-args.js';
import { ServerConnection } from './server-connection.js';

export type ServerBuildOptions = KustomizeRunOptions & {
  /** Cancels this build, as the runner's own signal cancels every build. */
  signal?: AbortSignal | undefined;
};

/** One answer line of kustomize-server (see tools/kustomize-server/main.go). */
const Answer = z.object({
  id: z.number(),
  yaml: z.string().optional(),
  error: z.string().optional(),
  overCap: z.boolean().optional(),
  panic: z.string().optional(),
});
type Answer = z.infer<typeof Answer>;

/** After this many unexpected exits the server is not started again: builds run kustomize. */
const MAX_CRASHES = 3;
/** How long close() lets the process finish on its own before killing it. */
const CLOSE_GRACE_MS = 2_000;

interface Build {
  id: number;
  /** The request, one JSON line, sent again if the build moves to a fresh process. */
  line: string;
  args: string[];
  /** How errors name it: as the kustomize run it stands for. */
  command: string;
  options: ServerBuildOptions;
  resolve: (yaml: string) => void;
  reject: (err: unknown) => void;
  timer?: NodeJS.Timeout;
  unlisten?: () => void;
  connection?: ServerConnection<Build> | undefined;
  done: boolean;
}

export class KustomizeServer {
  readonly #runner: ToolRunner;
  #live: ServerConnection<Build> | undefined;
  #starting: Promise<ServerConnection<Build>> | undefined;
  #nextId = 1;
  #crashes = 0;
  #closed = false;

  /** Nothing starts until warm() or the first build; `runner`'s signal stops the process. */
  constructor(runner: ToolRunner) {
    this.#runner = runner;
  }

  /**
   * Starts the process ahead of the first build, so that its start (kustomize loads its
   * OpenAPI schema, about 0.1 s) overlaps the render's other work. A start that fails is
   * tried again by the first build, which then runs the binary as it would have.
   */
  warm(): void {
    if (this.#closed || this.#crashes >= MAX_CRASHES) return;
    this.#connect().catch(() => undefined);
  }

  /** What `kustomize build dir` prints, or the ToolError its run would fail with. */
  build(dir: string, options: ServerBuildOptions): Promise<string> {
    const args = kustomizeBuildArgs(dir, options.enableExecPlugins);
    // The server fetches nothing: remote bases are the binary's to fetch, when allowed.
    if (options.allowRemoteBases || this.#closed || this.#crashes >= MAX_CRASHES)
      return this.#binary(args, options);
    if (options.signal?.aborted)
      return Promise.reject(new CancelledError('kustomize was not started: cancelled'));
    return new Promise<string>((resolve, reject) => {
      const id = this.#nextId++;
      const { enableExecPlugins, maxOutputBytes } = options;
      const line = `${JSON.stringify({ id, dir, enableExecPlugins, maxOutputBytes })}\n`;
      const command = describeCommand('kustomize', args);
      const build: Build = { id, line, args, command, options, resolve, reject, done: false };
      build.timer = setTimeout(() => this.#stop(build, timedOut(command)), options.timeoutMs);
      const signal = options.signal;
      if (signal) {
        const onAbort = () => this.#stop(build, new CancelledError(`${command} was cancelled`));
        signal.addEventListener('abort', onAbort, { once: true });
        build.unlisten = () => signal.removeEventListener('abort', onAbort);
      }
      void this.#send(build);
    });
  }

  /**
   * Stops the process once it has answered what it was sent (killing it after a grace
   * period); builds asked for afterwards run the kustomize binary.
   */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#starting?.catch(() => undefined);
    const connection = this.#live;
    this.#live = undefined;
    if (connection?.alive && !connection.retired) await connection.close(CLOSE_GRACE_MS);
  }

  async #send(build: Build): Promise<void> {
    let connection: ServerConnection<Build>;
    try {
      connection = await this.#connect();
    } catch (err) {
      if (classify(err) === 'cancelled')
        return this.#finish(build, {
          error: new CancelledError(`kustomize was not started: cancelled`),
        });
      return this.#viaBinary(build);
    }
    if (build.done) return;
    if (!connection.alive || connection.retired) {
      if (this.#closed || this.#crashes >= MAX_CRASHES) return this.#viaBinary(build);
      return this.#send(build);
    }
    build.connection = connection;
    connection.send(build.id, build, build.line);
  }

  #connect(): Promise<ServerConnection<Build>> {
    const live = this.#live;
    if (live?.alive && !live.retired) return Promise.resolve(live);
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<ServerConnection<Build>> {
    const server = await this.#runner.spawnServer('kustomize-server', []);
    const connection: ServerConnection<Build> = new ServerConnection(server, {
      line: (text) => this.#answered(connection, text),
      exit: (exit, left) => this.#exited(connection, exit, left),
    });
    this.#live = connection;
    return connection;
  }

  #answered(connection: ServerConnection<Build>, text: string): void {
    let answer: Answer;
    try {
      answer = Answer.parse(JSON.parse(text));
    } catch {
      // Not an answer: nothing it says can be trusted, and its exit sends its builds on.
      connection.kill();
      return;
    }
    const build = connection.take(answer.id);
    if (build === undefined) return; // it timed out or was cancelled meanwhile
    const { command, options } = build;
    if (answer.panic !== undefined) return this.#viaBinary(build);
    if (
      answer.overCap ||
      (answer.yaml !== undefined && answer.yaml.length > options.maxOutputBytes)
    )
      return this.#finish(build, { error: overCap(command) });
    if (answer.yaml !== undefined) return this.#finish(build, { yaml: answer.yaml });
    const stderr = stderrTail(answer.error ?? '');
    this.#finish(build, { error: new ToolError(command, 1, stderr, 'failed with exit code 1') });
  }

  /** A build that timed out or was cancelled fails, and takes its process down with it. */
  #stop(build: Build, error: ToolError | CancelledError): void {
    if (build.done) return;
    const connection = build.connection;
    this.#finish(build, { error });
    if (connection === undefined || connection.retired) return;
    if (this.#live === connection) this.#live = undefined;
    // The others lose what they had done and start over on a fresh process, on their own clocks.
    for (const other of connection.retire()) {
      other.connection = undefined;
      void this.#send(other);
    }
  }

  #exited(connection: ServerConnection<Build>, exit: ServerExit, left: Build[]): void {
    if (this.#live === connection) this.#live = undefined;
    if (exit.cancelled) {
      for (const build of left)
        this.#finish(build, { error: new CancelledError(`${build.command} was cancelled`) });
      return;
    }
    if (!this.#closed) this.#crashes++;
    for (const build of left) this.#viaBinary(build);
  }

  #finish(build: Build, outcome: { yaml: string } | { error: unknown }): void {
    if (!this.#release(build)) return;
    if ('yaml' in outcome) build.resolve(outcome.yaml);
    else build.reject(outcome.error);
  }

  /** The build the server could not finish, run by the kustomize binary on its full clock. */
  #viaBinary(build: Build): void {
    if (this.#release(build))
      this.#binary(build.args, build.options).then(build.resolve, build.reject);
  }

  /** Stops waiting for a build's answer; false when it was already settled. */
  #release(build: Build): boolean {
    if (build.done) return false;
    build.done = true;
    clearTimeout(build.timer);
    build.unlisten?.();
    build.connection?.take(build.id);
    return true;
  }

  async #binary(args: string[], options: ServerBuildOptions): Promise<string> {
    const { stdout } = await this.#runner.run('kustomize', args, {
      timeoutMs: options.timeoutMs,
      maxOutputBytes: options.maxOutputBytes,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return stdout;
  }
}

/** The error ToolRunner.run gives a kustomize run that times out. */
function timedOut(command: string): ToolError {
  return new ToolError(command, undefined, '', 'timed out', 'tool-timeout');
}

/** The error ToolRunner.run gives a kustomize run whose output passes the cap. */
function overCap(command: string): ToolError {
  return new ToolError(command, undefined, '', 'output exceeded the size cap');
}
