/**
 * The service example (scripts/example-service, `npm run example:service`): `fluxlens serve`
 * reviews a pull request end to end on this machine. A GitHub REST emulator and a git
 * smart-HTTP server on loopback stand in for GitHub; the repository is the one
 * scripts/example builds (`--repo`, with `--base` and `--head` branches); a signed
 * pull_request.opened starts the review (example-service.ts). The check run, the comment and
 * the first review's latency go to stdout, progress to stderr; everything it started is
 * stopped, and what it wrote removed, on the way out (also on Ctrl-C).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  reviewExample,
  runCleanup,
  startExampleWorld,
  type Cleanup,
  type ExampleOptions,
  type ExampleReview,
  type ExampleWorld,
} from './example-service.js';

const progress = (line: string) => process.stderr.write(`example:service: ${line}\n`);

function parseOptions(argv: string[]): ExampleOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      repo: { type: 'string' },
      base: { type: 'string', default: 'main' },
      head: { type: 'string' },
    },
    strict: true,
  });
  if (values.repo === undefined || values.head === undefined) {
    throw new Error('usage: example-service-process.ts --repo DIR [--base BRANCH] --head BRANCH');
  }
  return { repoDir: values.repo, base: values.base, head: values.head };
}

function report(world: ExampleWorld, options: ExampleOptions, result: ExampleReview): string {
  const { run, comment } = result;
  const short = (sha: string) => sha.slice(0, 12);
  const { owner, repo, pull } = world.target;
  return [
    `Pull request ${owner}/${repo}#${pull}: ${options.head} (${short(world.headSha)}) into ${options.base} (${short(world.baseSha)})`,
    '',
    `Check run "${run.name}": ${run.status}, conclusion: ${run.conclusion ?? 'none'}`,
    `Title: ${run.output.title ?? ''}`,
    'Summary:',
    '',
    (run.output.summary ?? '').trimEnd(),
    '',
    `Comment by ${comment.author}:`,
    '',
    comment.body.trimEnd(),
    '',
    `First analysis: ${(result.latencyMs / 1000).toFixed(1)} s from the webhook's acceptance to the completed check run`,
    '',
  ].join('\n');
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const stopping = new AbortController();
  for (const name of ['SIGINT', 'SIGTERM'] as const) process.once(name, () => stopping.abort());
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-example-service-'));
  const cleanup: Cleanup = [() => rmSync(work, { recursive: true, force: true })];
  let world: ExampleWorld | undefined;
  try {
    world = await startExampleWorld(options, work, cleanup);
    const result = await reviewExample(world, stopping.signal);
    process.stdout.write(report(world, options, result));
    return 0;
  } catch (err) {
    progress(err instanceof Error ? err.message : String(err));
    if (world) process.stderr.write(`fluxlens serve's log:\n${world.serve.output()}`);
    return 1;
  } finally {
    await runCleanup(cleanup);
  }
}

process.exitCode = await main();
