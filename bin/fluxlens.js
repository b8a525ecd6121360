#!/usr/bin/env node
// Wiring only: `fluxlens serve` and `fluxlens worker` run their processes (workers/), stopped
// by src/shutdown.ts, the one handler of SIGTERM and SIGINT, as the CLI's commands are;
// everything else, their help included, is the CLI. The CLI is the bundle of
// rolldown.config.js, which starts in a fraction of the time tsc's hundreds of modules take;
// a build that ran tsc alone still runs, from tsc's output.
import { enableCompileCache } from 'node:module';
import { URL } from 'node:url';

// Not imported: the ESM namespace of node:fs reads its lazy stream exports, which load
// modules --version never uses (rolldown.config.js reads the bundle's built-ins the same way).
const { existsSync } = process.getBuiltinModule('node:fs');

// V8's compiled code of what loads below (the CLI's chunks, tsc's output for serve and the
// worker) kept between runs, so a run does not compile the bundle's megabytes again. Node's
// folder: NODE_COMPILE_CACHE, else node-compile-cache in the temporary folder;
// NODE_DISABLE_COMPILE_CACHE=1 turns it off. A folder that cannot be written (a read-only
// image without /tmp) only costs the cache: Node reports it in the result, which is ignored.
enableCompileCache();

const [command, ...rest] = process.argv.slice(2);
const help = rest.includes('--help') || rest.includes('-h');
// serve takes no flags: with any, the CLI prints its help or refuses them.
const entry =
  command === 'worker' && !help
    ? 'worker'
    : command === 'serve' && rest.length === 0
      ? 'serve'
      : undefined;
if (entry !== undefined) {
  const [{ main }, { shutdownOnSignals }] = await Promise.all([
    import(`../dist/workers/${entry}.js`),
    import('../dist/src/shutdown.js'),
  ]);
  process.exitCode = await main({
    env: process.env,
    stderr: (text) => process.stderr.write(text),
    shutdown: shutdownOnSignals(),
  });
} else {
  const bundle = new URL('../dist/cli/index.js', import.meta.url);
  const { main } = await import(existsSync(bundle) ? bundle.href : '../dist/src/cli/index.js');
  process.exitCode = await main(process.argv.slice(2));
}
