/**
 * Running the service image (FLUXLENS_TEST_IMAGE, which scripts/image-smoke builds) with podman
 * as deploy/ runs it: as the service user 10001, a read-only root file system, /tmp a tmpfs and
 * the cache a volume of its own (anonymous: `--rm` removes it with the container). Containers
 * share the host's network, where the tests' GitHub emulator, git server and Redis listen on
 * loopback. Every container is labelled IMAGE_TEST_LABEL, so whoever started them can remove
 * the ones a killed test left behind.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export const IMAGE_TEST_LABEL = 'fluxlens-image-smoke';

/** The image under test; the test cannot run without one. */
export function testImage(): string {
  const image = process.env['FLUXLENS_TEST_IMAGE'];
  if (image === undefined || image === '') {
    throw new Error(
      'FLUXLENS_TEST_IMAGE is not set: scripts/image-smoke builds the image and runs these tests',
    );
  }
  return image;
}

/**
 * `--ulimit` options that runc can apply without CAP_SYS_RESOURCE: podman's defaults (1048576
 * open files and processes) are above the hard limits of a container host that grants no such
 * capability, and runc then fails with "error setting rlimits for ready process: ... operation
 * not permitted". Open files: the hard limit podman runs under. Processes: that, but never more
 * than the kernel's pid_max, which conmon is held to.
 */
function ulimits(): string[] {
  const hard = execFileSync('bash', ['-c', 'ulimit -Hn; ulimit -Hu'], { encoding: 'utf8' })
    .trim()
    .split('\n');
  const [files = 'unlimited', processes = 'unlimited'] = hard;
  const pidMax = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
  const nproc = processes === 'unlimited' ? pidMax : Math.min(Number(processes), pidMax);
  const options = [`--ulimit=nproc=${nproc}:${nproc}`];
  if (files !== 'unlimited') options.push(`--ulimit=nofile=${files}:${files}`);
  return options;
}

/** `podman run` and its options up to the image (which the caller adds, with the command). */
export function podmanRun(extra: string[] = []): string[] {
  return [
    'run',
    '--rm',
    '--runtime=runc',
    `--label=${IMAGE_TEST_LABEL}`,
    '--network=host',
    '--user=10001:10001',
    '--read-only',
    '--tmpfs=/tmp',
    '--volume=/var/cache/fluxlens',
    ...ulimits(),
    ...extra,
  ];
}
