/**
 * `fluxlens` from the service image (test/support/image.ts) instead of the sources: an `entry`
 * for startFluxlensProcess (test/support/service.ts). The container gets this process's argv and
 * its FLUXLENS_* settings, by name (podman reads the values from its environment, so a secret
 * is never on a command line), except where things live: the image has its own tools and its
 * cache volume. SIGTERM and SIGINT reach the container through podman, as an orchestrator's
 * stop does; the exit code is the container's.
 */
import { spawn } from 'node:child_process';
import { podmanRun, testImage } from './image.js';

/** The image's own: FLUXLENS_CACHE_DIR is its volume, FLUXLENS_TOOLS_DIR its tools. */
const HOST_ONLY = new Set(['FLUXLENS_CACHE_DIR', 'FLUXLENS_TOOLS_DIR', 'FLUXLENS_TEST_IMAGE']);

const image = testImage();
const names = Object.keys(process.env).filter(
  (name) => name.startsWith('FLUXLENS_') && !HOST_ONLY.has(name),
);
const args = [...podmanRun(names.map((name) => `--env=${name}`)), image, ...process.argv.slice(2)];
const child = spawn('podman', args, { stdio: ['ignore', 'inherit', 'inherit'] });
for (const name of ['SIGTERM', 'SIGINT'] as const) process.on(name, () => child.kill(name));
process.exitCode = await new Promise<number>((resolve) => {
  child.on('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128)));
  child.on('error', (err) => {
    process.stderr.write(`podman: ${err.message}\n`);
    resolve(127);
  });
});
