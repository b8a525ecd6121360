#!/usr/bin/env node
// Wiring only: `fluxlens worker` runs the worker process (workers/), everything else the CLI.
// The CLI is the bundle of rolldown.config.js, which starts in a fraction of the time tsc's
// hundreds of modules take; a build that ran tsc alone still runs, from tsc's output.
import { existsSync } from 'node:fs';
import { URL } from 'node:url';

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
  const bundle = new URL('../dist/cli/index.js', import.meta.url);
  const { main } = await import(existsSync(bundle) ? bundle.href : '../dist/src/cli/index.js');
  process.exitCode = await main(process.argv.slice(2));
}
