/**
 * SIGTERM and SIGINT as one AbortSignal for the whole process, the only handler of them:
 * the CLI's commands wait on it, and bin/fluxlens.js gives it to serve and the worker.
 * Listeners are added only when something asks, so a process that does not listen is
 * stopped by the signal as usual; a second signal, once the listener is gone, stops it at once.
 */

/** Exit codes as a shell reports a process a signal ended: 128 plus the signal's number. */
export const SIGNAL_EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/** Why the shutdown signal aborted: the signal the process received. */
export class ShutdownRequested extends Error {
  constructor(readonly signal: keyof typeof SIGNAL_EXIT_CODES) {
    super(`received ${signal}`);
    this.name = 'ShutdownRequested';
  }
}

let processShutdown: AbortController | undefined;

/** Aborted, with a ShutdownRequested, on the first SIGTERM or SIGINT. */
export function shutdownOnSignals(): AbortSignal {
  if (processShutdown === undefined) {
    const controller = new AbortController();
    processShutdown = controller;
    for (const name of ['SIGTERM', 'SIGINT'] as const) {
      process.once(name, () => controller.abort(new ShutdownRequested(name)));
    }
  }
  return processShutdown.signal;
}

/** The shutdown signal when something asked for it; never adds listeners. */
export function askedShutdown(): AbortSignal | undefined {
  return processShutdown?.signal;
}
