#!/usr/bin/env node
// Wiring only: `fluxlens worker` runs the worker process (workers/), everything else the CLI.
const [command, ...rest] = process.argv.slice(2);
if (command === 'worker' && !rest.includes('--help') && !rest.includes('-h')) {
  const { main } = await import('../dist/workers/worker.js');
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT']) process.once(name, () => stop.abort());
  process.exitCode = await main({
    env: process.env,
    stderr: (text) => process.stderr.write(text),
    shutdown: stop.signal,
  });
} else {
  const { main } = await import('../dist/src/cli/index.js');
  process.exitCode = await main(process.argv.slice(2));
}
