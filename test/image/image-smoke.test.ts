/**
 * The service image as deploy/ runs it (scripts/image-smoke builds it and runs this file, the
 * vitest project `image`): every container as the service user 10001 on a read-only root file
 * system, /tmp a tmpfs and the cache a volume. Its CLI renders the example repository to what the
 * sources render on this host; `fluxlens serve` and `fluxlens worker` from the image, on a real
 * Redis, review the example pull request end to end: the scenario of `npm run example:service`
 * (GitHub's own webhook payload, signed; the repository over git smart HTTP), judged by what
 * the GitHub emulator recorded.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildExampleRepository, EXAMPLE } from '../../scripts/pictures/example-review.js';
import { COMMENT_MARKER } from '../../src/review/index.js';
import {
  EXAMPLE_BOT,
  EXAMPLE_CHECK_RUN,
  reviewExample,
  runCleanup,
  startExampleWorld,
  type Cleanup,
  type ExampleReview,
  type ExampleWorld,
} from '../support/example-service.js';
import { IMAGE_TEST_LABEL, podmanRun, testImage } from '../support/image.js';
import { projectRoot } from '../support/paths.js';
import { startRedis } from '../support/redis.js';
import { runFile } from '../support/run-file.js';
import { eventually } from '../support/service.js';

const run = (file: string, args: string[], env: NodeJS.ProcessEnv = process.env) =>
  runFile(file, args, { env, maxBuffer: 64 * 1024 * 1024 });

const image = testImage();
const inImage = (options: string[], args: string[]) =>
  run('podman', [...podmanRun(options), image, ...args]);

/** The PEM blocks of a bundle, whitespace-normalised. */
function certificates(bundle: string): string[] {
  return [...bundle.matchAll(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g)].map(
    (m) => m[0].replace(/\r/g, '').trim(),
  );
}

let work: string;

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'fluxlens-image-smoke-'));
});

afterAll(async () => {
  // Containers of a test that was stopped half-way (the rest removed themselves with --rm).
  const left = await run('podman', [
    'ps',
    '--all',
    '--quiet',
    `--filter=label=${IMAGE_TEST_LABEL}`,
  ]);
  const ids = left.stdout.split('\n').filter(Boolean);
  if (ids.length > 0) await run('podman', ['rm', '--force', '--volumes', ...ids]);
  rmSync(work, { recursive: true, force: true });
});

describe('the service image', () => {
  it('runs as the service user, writing only to its cache volume and /tmp', async () => {
    const probe = [
      'id -u; id -g',
      'touch /app/probe 2>/dev/null && echo app-writable || echo app-read-only',
      'touch /var/cache/fluxlens/probe && echo cache-writable',
      'touch /tmp/probe && echo tmp-writable',
    ].join('; ');
    const result = await inImage(['--entrypoint=/bin/sh'], ['-c', probe]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      '10001',
      '10001',
      'app-read-only',
      'cache-writable',
      'tmp-writable',
    ]);
  });

  it('keeps the CA bundle the build trusted out of its file system and settings', async () => {
    const settings = await run('podman', [
      'image',
      'inspect',
      '--format',
      '{{json .Config}}',
      image,
    ]);
    expect(settings.code, settings.stderr).toBe(0);
    expect(settings.stdout).not.toMatch(/secrets|SSL_CERT|CA_CERTS|CAINFO|PIP_CERT/);
    const shipped = await inImage(
      ['--entrypoint=/bin/cat'],
      ['/etc/ssl/certs/ca-certificates.crt'],
    );
    expect(certificates(shipped.stdout).length).toBeGreaterThan(0);
    // The certificates of the build's bundle that Debian's bundle in the image does not have
    // (a TLS-intercepting proxy's): a line of each must be in none of the image's files.
    const bundle = process.env['FLUXLENS_TEST_CA_BUNDLE'] ?? '';
    const own = new Set(certificates(shipped.stdout));
    const buildOnly =
      bundle === '' ? [] : certificates(readFileSync(bundle, 'utf8')).filter((c) => !own.has(c));
    if (buildOnly.length === 0) return;
    const patterns = join(work, 'ca-patterns');
    writeFileSync(patterns, buildOnly.map((c) => `${c.split('\n')[1] ?? ''}\n`).join(''));
    const id = (
      await run('podman', ['create', `--label=${IMAGE_TEST_LABEL}`, image])
    ).stdout.trim();
    const found = await run('sh', [
      '-c',
      'podman export "$1" | grep -a -c -F -f "$2"; podman rm --volumes "$1" >/dev/null',
      'sh',
      id,
      patterns,
    ]);
    expect(found.stdout.trim()).toBe('0');
  });

  it('prints its usage with --help', async () => {
    const result = await inImage([], ['--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('fluxlens render --repo DIR');
    expect(result.stdout).toContain('fluxlens serve | fluxlens worker');
  });

  it('renders the example repository to the objects the sources render on this host', async () => {
    const repo = join(work, 'render', 'home-cluster');
    cpSync(join(projectRoot, 'examples/home-cluster'), repo, { recursive: true });
    const args = ['render', '--repo', '/repo', '--offline', '--output', 'json'];
    const contained = await inImage([`--volume=${repo}:/repo:ro`], args);
    // The same on this host from the sources, with the tools of its PATH and a fresh cache.
    const onHost = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'test/support/fluxlens-process.ts',
        ...args.slice(0, 2),
        repo,
        ...args.slice(3),
      ],
      { ...process.env, FLUXLENS_CACHE_DIR: join(work, 'render', 'cache') },
    );
    expect(contained.code, contained.stderr).toBe(0);
    expect(onHost.code, onHost.stderr).toBe(0);
    const rendered = JSON.parse(contained.stdout) as { objects: unknown[]; producers: unknown[] };
    // kustomize and helm ran in the image: objects out, and the remote chart an offline error.
    expect(rendered.objects.length).toBeGreaterThan(0);
    expect(contained.stdout).toContain('is not in the cache (offline)');
    expect(rendered).toEqual(JSON.parse(onHost.stdout));
  });
});

describe('fluxlens serve and fluxlens worker from the image, on Redis', () => {
  const cleanup: Cleanup = [];
  let world: ExampleWorld;
  let review: ExampleReview;

  beforeAll(async () => {
    const repoDir = buildExampleRepository(join(work, 'service'));
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    world = await startExampleWorld(
      {
        repoDir,
        base: EXAMPLE.base,
        head: EXAMPLE.head,
        entry: join(projectRoot, 'test/support/fluxlens-image-process.ts'),
        redisUrl: redis.url,
      },
      join(work, 'service'),
      cleanup,
    );
    review = await reviewExample(world);
  }, 300_000);

  afterAll(async () => {
    await runCleanup(cleanup);
  }, 60_000);

  it('completes a failed check run for the dangerous pull request, written by the worker', async () => {
    expect(review.run.name).toBe(EXAMPLE_CHECK_RUN);
    expect(review.run.head_sha).toBe(world.headSha);
    expect(review.run.conclusion).toBe('failure');
    expect(review.run.output.title).toMatch(
      /^DANGER: not assessed: 1 changed HelmRelease could not be rendered: chart not in the offline cache; Deletes Namespace whoami \(data loss\)/,
    );
    const creates = world.emulator.requests('POST', '/repos/example/home-cluster/check-runs');
    expect(creates.map((r) => (r.body as { status?: string }).status)).toContain('in_progress');
    // The worker logs the job after publishing it and storing its result.
    const done = () => (world.worker?.output().includes('"job completed"') ? true : undefined);
    expect(await eventually(done, "the worker's job completed", 30_000)).toBe(true);
  });

  it('comments on the pull request with the verdict and the data-loss finding', () => {
    expect(review.comment.author).toBe(EXAMPLE_BOT);
    expect(review.comment.body).toContain(COMMENT_MARKER);
    expect(review.comment.body).toContain('### fluxlens: **DANGER**');
    expect(review.comment.body).toContain('StatefulSet/podinfo/podinfo-redis');
  });

  it('stops serve and the worker cleanly on SIGTERM, as an orchestrator does', async () => {
    await runCleanup(cleanup.splice(0));
    expect(await world.serve.exited).toBe(0);
    expect(await world.worker?.exited).toBe(0);
  }, 60_000);
});
