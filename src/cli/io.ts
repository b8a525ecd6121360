/** What a command may touch of the process: its output streams and its environment. */
export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress lines). */
  isTTY: boolean;
  /** Whether stdout is a terminal (coloured text reports); false when absent. */
  stdoutIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
  /** Aborts when the process is asked to stop (SIGTERM, SIGINT); long-running commands wait on it. */
  shutdown?: AbortSignal;
}

/**
 * What the engine tells the logs (a helper that could not serve a run, which its binary ran),
 * as a line on stderr: the CLI has no other log.
 */
export function stderrWarning(io: CliIO) {
  return (message: string, fields: Record<string, string>): void => {
    const details = Object.entries(fields).map(([key, value]) => `${key}: ${value}`);
    io.stderr(`fluxlens: ${message} (${details.join('; ')})\n`);
  };
}
