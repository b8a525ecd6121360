/**
 * `fluxlens` from the sources, for tests that run the service as separate processes: the
 * same dispatch as bin/fluxlens.js (worker -> workers/, the rest -> the CLI), without a build.
 */
import { main as cli } from '../../src/cli/index.js';
import { main as worker } from '../../workers/worker.js';

const [command, ...rest] = process.argv.slice(2);
if (command === 'worker') {
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => stop.abort());
  process.exitCode = await worker({
    env: process.env,
    stderr: (text) => process.stderr.write(text),
    shutdown: stop.signal,
  });
} else {
  process.exitCode = await cli([command ?? '--help', ...rest]);
}
