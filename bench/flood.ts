/**
 * Flood benchmark: a real `fluxlens serve` (and, with Redis, a `fluxlens worker`) reviews
 * a Flux repository served over git, against the GitHub emulator, while one PR gets a
 * flood of `/fluxlens render` comments and then of re-render API calls. Measured: another
 * PR's time from its `opened` delivery to its completed check run during each flood,
 * against the same on the idle service (target: within 2x), and what each flood cost:
 * GitHub requests, reactions posted, jobs queued and coalesced, answers by status.
 * `node --import tsx bench/flood.ts --help`; exits 1 when the target is missed, 2 when the
 * run itself fails. bench/README.md explains the figures.
 */
import { performance } from 'node:perf_hooks';
import { logLines, reviewed } from '../test/support/fault-checks.js';
import { faultFleet } from '../test/support/fault-fleet.js';
import {
  drained,
  enqueueOutcomes,
  floodApi,
  floodCommands,
  reactionsPosted,
} from '../test/support/floods.js';
import {
  PULL,
  pullRequestPayload,
  sleep,
  startServiceWorld,
  type ServiceProcess,
  type ServiceWorld,
  worldPull,
} from '../test/support/service.js';
import { benchFlags } from './support/harness.js';

const OPTIONS = {
  mode: ['redis', 'redis (serve + one worker) or inline (serve alone)'],
  commands: ['200', '/fluxlens render comments in the first flood'],
  'commands-seconds': ['20', 'over how many seconds they are sent'],
  api: ['500', 're-render API calls in the second flood'],
  'api-seconds': ['30', 'over how many seconds they are sent'],
  'other-after': ['2', "seconds into a flood when the other PR's head is pushed"],
  'settle-seconds': ['300', 'how long to wait for the flooded PR to drain after a flood'],
  concurrency: ['2', 'reviews at once (FLUXLENS_WORKER_CONCURRENCY, the default)'],
  'rate-limits': ['on', 'off lifts the command and API limits, to measure coalescing alone'],
} as const;
const { help, flag, usage } = benchFlags(OPTIONS, 'node --import tsx bench/flood.ts [options]');
const num = (name: keyof typeof OPTIONS): number => Number(flag(name));
const TARGET_RATIO = 2;

interface FloodFigures {
  name: string;
  sent: number;
  answers: Record<string, number>;
  githubRequests: number;
  githubByKind: Record<string, number>;
  reactions: number;
  outcomes: Record<string, number>;
  rateLimitedCommands: number;
  otherPrMs: number;
  drainedMs: number | undefined;
}

/** From the PR's `opened` delivery to its completed check run. */
async function timeToCheck(world: ServiceWorld, pull: number, head: number): Promise<number> {
  const sha = world.pushHead(head, pull);
  const started = performance.now();
  const res = await world.deliver(
    'pull_request',
    pullRequestPayload('opened', sha, worldPull(pull)),
  );
  if (res.status !== 202) throw new Error(`the opened delivery got ${res.status}`);
  await reviewed(world, sha, 900_000);
  return performance.now() - started;
}

function kindOf(method: string, path: string): string {
  if (path.endsWith('/reactions')) return 'reaction';
  if (path.includes('/access_tokens')) return 'installation token';
  if (/\/installation$/.test(path)) return 'installation lookup';
  if (method === 'GET' && /\/pulls\/\d+$/.test(path)) return 'pull lookup';
  if (path.includes('/check-runs')) return 'check run';
  if (path.includes('/comments')) return 'comment';
  return 'other';
}

function tally(items: Iterable<string | number>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[String(item)] = (counts[String(item)] ?? 0) + 1;
  return counts;
}

function minus(after: Record<string, number>, before: Record<string, number>) {
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, n]) => [key, n - (before[key] ?? 0)] as const)
      .filter(([, n]) => n > 0),
  );
}

async function flood(
  world: ServiceWorld,
  server: ServiceProcess,
  name: string,
  send: () => Promise<number[]>,
  other: { pull: number; head: number },
): Promise<FloodFigures> {
  const requestsBefore = world.emulator.requests().length;
  const outcomesBefore = enqueueOutcomes(server);
  const limitedBefore = logLines(server, 'command over its installation limit, ignored').length;
  const sent = send();
  await sleep(num('other-after') * 1000);
  const otherPrMs = await timeToCheck(world, other.pull, other.head);
  const statuses = await sent;
  const drainedMs = await drained(world, num('settle-seconds') * 1000);
  const requests = world.emulator.requests().slice(requestsBefore);
  return {
    name,
    sent: statuses.length,
    answers: tally(statuses),
    githubRequests: requests.length,
    githubByKind: tally(requests.map((r) => kindOf(r.method, r.path))),
    reactions: reactionsPosted(world, requestsBefore),
    outcomes: minus(enqueueOutcomes(server), outcomesBefore),
    rateLimitedCommands:
      logLines(server, 'command over its installation limit, ignored').length - limitedBefore,
    otherPrMs,
    drainedMs,
  };
}

async function main(): Promise<number> {
  if (help) return (console.log(usage), 0);
  const redis = flag('mode') === 'redis';
  const fleet = faultFleet();
  const world = await startServiceWorld(fleet.files, { redis, heads: 4 });
  try {
    const lifted = flag('rate-limits') === 'off' ? '100000' : undefined;
    const env: Record<string, string> = {
      FLUXLENS_LOG_LEVEL: 'info',
      FLUXLENS_WORKER_CONCURRENCY: flag('concurrency'),
      ...(lifted === undefined
        ? {}
        : {
            FLUXLENS_COMMANDS_PER_MINUTE: lifted,
            FLUXLENS_API_RENDERS_PER_MINUTE: lifted,
            FLUXLENS_OWNER_RENDERS_PER_MINUTE: lifted,
          }),
    };
    const server = await world.start('serve', env);
    if (redis) await world.start('worker', env);
    // The flooded PR has a review already, as a PR people argue about would.
    await timeToCheck(world, PULL, 0);
    const idleMs = await timeToCheck(world, PULL + 1, 1);
    const commandSpacing = (num('commands-seconds') * 1000) / num('commands');
    const commands = await flood(
      world,
      server,
      `${num('commands')} /fluxlens render comments in ${num('commands-seconds')} s`,
      () => floodCommands(world, num('commands'), commandSpacing),
      { pull: PULL + 2, head: 2 },
    );
    const apiSpacing = (num('api-seconds') * 1000) / num('api');
    const api = await flood(
      world,
      server,
      `${num('api')} re-render API calls in ${num('api-seconds')} s`,
      () => floodApi(world, num('api'), apiSpacing),
      { pull: PULL + 3, head: 3 },
    );
    const floods = [commands, api];
    console.log(
      JSON.stringify({ mode: flag('mode'), idleMs: Math.round(idleMs), floods }, null, 2),
    );
    console.log(
      `\n${flag('mode')} mode; another PR's time to its check run, idle: ${(idleMs / 1000).toFixed(1)} s`,
    );
    let missed = false;
    for (const f of floods) {
      const ratio = f.otherPrMs / idleMs;
      if (ratio > TARGET_RATIO) missed = true;
      console.log(
        [
          `${f.name}:`,
          `  other PR ${(f.otherPrMs / 1000).toFixed(1)} s (${ratio.toFixed(2)}x idle)`,
          `  answers ${JSON.stringify(f.answers)}`,
          `  queue ${JSON.stringify(f.outcomes)}, commands ignored over the limit ${f.rateLimitedCommands}`,
          `  GitHub requests ${f.githubRequests} ${JSON.stringify(f.githubByKind)}, reactions ${f.reactions}`,
          `  drained ${f.drainedMs === undefined ? 'not within the wait' : `${(f.drainedMs / 1000).toFixed(1)} s after the flood`}`,
        ].join('\n'),
      );
    }
    if (missed) console.log(`MISSED: another PR waited more than ${TARGET_RATIO}x its idle time`);
    return missed ? 1 : 0;
  } finally {
    await world.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(2);
  },
);
