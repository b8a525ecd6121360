/**
 * `fluxlens` from the sources, for tests that run the service as separate processes: the
 * same dispatch as bin/fluxlens.js (serve and worker -> workers/, the rest -> the CLI),
 * without a build.
 */
import { main as cli } from '../../src/cli/index.js';
import { main as serve } from '../../workers/serve.js';
import { main as worker } from '../../workers/worker.js';

const [command, ...rest] = process.argv.slice(2);
const help = rest.includes('--help') || rest.includes('-h');
const entry =
  command === 'worker' && !help
    ? worker
    : command === 'serve' && rest.length === 0
      ? serve
      : undefined;
if (entry !== undefined) {
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) process.once(name, () => stop.abort());
  process.exitCode = await entry({
    env: process.env,
    stderr: (text) => process.stderr.write(text),
    shutdown: stop.signal,
  });
} else {
  process.exitCode = await cli([command ?? '--help', ...rest]);
}
