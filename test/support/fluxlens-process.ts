/**
 * `fluxlens` from the sources, for tests that run the service as separate processes: the
 * same dispatch as bin/fluxlens.js (serve and worker -> workers/, the rest -> the CLI),
 * without a build.
 */
import { main as cli } from '../../src/cli/index.js';
import { shutdownOnSignals } from '../../src/shutdown.js';
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
  process.exitCode = await entry({
    env: process.env,
    stderr: (text) => process.stderr.write(text),
    shutdown: shutdownOnSignals(),
  });
} else {
  process.exitCode = await cli([command ?? '--help', ...rest]);
}
