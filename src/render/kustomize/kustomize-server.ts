/**
 * `kustomize build` through one kustomize-server process (tools/kustomize-server) instead
 * of one kustomize process per build, with ToolServer's promise: the same output, the same
 * error text, the tool runner's bounds for each build, and the kustomize binary for a build
 * the server cannot finish.
 */
import type { ToolRunner } from '../../tool-runner.js';
import { kustomizeBuildArgs, type KustomizeRunOptions } from './build-args.js';
import { ToolServer, type ToolServerEvents } from './tool-server.js';

export type ServerBuildOptions = KustomizeRunOptions & {
  /** Cancels this build, as the runner's own signal cancels every build. */
  signal?: AbortSignal | undefined;
};

export class KustomizeServer {
  readonly #runner: ToolRunner;
  readonly #server: ToolServer;

  /** Nothing starts until warm() or the first build; `runner`'s signal stops the process. */
  constructor(runner: ToolRunner, events: ToolServerEvents = {}) {
    this.#runner = runner;
    const tools = { server: 'kustomize-server', binary: 'kustomize' } as const;
    this.#server = new ToolServer(runner, tools, events);
  }

  /**
   * Starts the process ahead of the first build, so that its start (kustomize loads its
   * OpenAPI schema, about 0.1 s) overlaps the render's other work.
   */
  warm(): void {
    this.#server.warm();
  }

  /** What `kustomize build dir` prints, or the ToolError its run would fail with. */
  build(dir: string, options: ServerBuildOptions): Promise<string> {
    const { enableExecPlugins, maxOutputBytes, timeoutMs, signal } = options;
    const args = kustomizeBuildArgs(dir, enableExecPlugins);
    // The server fetches nothing: remote bases are the binary's to fetch, when allowed.
    if (options.allowRemoteBases)
      return this.#runner
        .run('kustomize', args, { timeoutMs, maxOutputBytes, ...(signal ? { signal } : {}) })
        .then(({ stdout }) => stdout);
    return this.#server.run({
      request: { dir, enableExecPlugins, maxOutputBytes },
      args,
      timeoutMs,
      maxOutputBytes,
      signal,
    });
  }

  /**
   * Stops the process once it has answered what it was sent (killing it after a grace
   * period); builds asked for afterwards run the kustomize binary.
   */
  close(): Promise<void> {
    return this.#server.close();
  }
}
