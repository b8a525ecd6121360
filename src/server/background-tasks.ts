/**
 * Work started by a request but not awaited by it (a neutral check run, a reaction): it
 * calls GitHub, which must stay off the request path. Failures are logged; closing the
 * app waits for whatever is still running.
 */
import type { FastifyBaseLogger } from 'fastify';

export interface BackgroundTasks {
  run(name: string, log: FastifyBaseLogger, task: () => Promise<void>): void;
  drain(): Promise<void>;
}

export function createBackgroundTasks(): BackgroundTasks {
  const pending = new Set<Promise<void>>();
  return {
    run(name, log, task) {
      const running = Promise.resolve()
        .then(task)
        .catch((err: unknown) => log.warn({ err, task: name }, 'background task failed'))
        .finally(() => pending.delete(running));
      pending.add(running);
    },
    async drain() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
  };
}
