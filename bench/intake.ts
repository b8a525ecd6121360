/**
 * Webhook intake benchmark: a real `fluxlens serve` on a real redis-server (no worker, so
 * jobs stay waiting) takes signed pull_request deliveries from a bounded load generator on
 * loopback. Target: at least 1,000 deliveries/s accepted, p99 at most 50 ms, none lost and
 * none queued twice. By default a closed loop (the next delivery goes when an answer comes:
 * capacity); `--rate 1000` offers 1,000/s whatever the answers (latency at the target load).
 * `node --import tsx bench/intake.ts --help`; exits 1 when a target is missed, 2 when the
 * run itself fails. bench/README.md explains the figures.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { createRedisQueue, ReviewJob } from '../src/queue/index.js';
import { deleteKeys, startRedis } from '../test/support/redis.js';
import { example, set, signBody } from '../test/unit/server/support/github-examples.js';
import { benchFlags, onCleanUp, reportMissed, runBench, spawnServe } from './support/harness.js';

/** Every option: its default (undefined: off) and what it sets. */
const OPTIONS = {
  deliveries: ['20000', 'measured deliveries'],
  concurrency: ['32', 'requests in flight at most, each on a keep-alive connection of its own'],
  rate: ['0', 'deliveries per second to offer; 0 sends as fast as answers come'],
  warmup: ['5000', 'deliveries before the measured run, not counted (JIT, heap sizing)'],
  'redelivery-share': ['0.05', 'exact redeliveries: same body, same X-GitHub-Delivery'],
  'repeat-share': ['0.05', 'heads sent again under new delivery ids'],
  seed: ['1', 'where redeliveries and repeats fall'],
  'log-level': ['info', "the server's FLUXLENS_LOG_LEVEL, as deployed"],
  'cpu-prof': [undefined, "directory for the server's V8 CPU profile"],
} satisfies Record<string, [string | undefined, string]>;
const { help, flag, usage } = benchFlags(OPTIONS, 'node --import tsx bench/intake.ts [options]');

const [OWNER, REPO, INSTALLATION] = ['home-ops', 'fleet', 4242] as const;
const TARGET = { perSecond: 1000, p99Ms: 50 };
/** The BullMQ queue `fluxlens serve` fills: createRedisQueue's default name. */
const QUEUE_NAME = 'reviews';
/** Placeholders in the payload text, replaced per delivery: cloning 22 kB objects is slow. */
const PULL_MARK = '987654321';
const SHA_MARK = 'feedface'.repeat(5);

type Kind = 'first' | 'redelivery' | 'repeat';
interface Planned {
  kind: Kind;
  pull: number;
  deliveryId: string;
}

/** A seeded LCG: the same plan for the same seed (products stay below 2^53). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (state * 1664525 + 1013904223) % 2 ** 32) / 2 ** 32;
}

/**
 * `total` deliveries: one per distinct PR, so per distinct (PR, head); then exact
 * redeliveries and repeated heads under new ids, each placed soon after its original
 * (within 200 places, so often while the original is still in flight).
 */
function plan(total: number, shares: number[], firstPull: number): Planned[] {
  const random = prng(Number(flag('seed')));
  const [redeliveries = 0, repeats = 0] = shares.map((share) => Math.round(total * share));
  const firsts = Array.from(
    { length: total - redeliveries - repeats },
    (_, i): Planned => ({ kind: 'first', pull: firstPull + i, deliveryId: randomUUID() }),
  );
  const keyed = firsts.map((d, i) => ({ d, key: i }));
  for (let i = 0; i < redeliveries + repeats; i++) {
    const at = Math.floor(random() * firsts.length);
    const { pull, deliveryId } = firsts[at] as Planned;
    const d: Planned =
      i < redeliveries
        ? { kind: 'redelivery', pull, deliveryId }
        : { kind: 'repeat', pull, deliveryId: randomUUID() };
    keyed.push({ d, key: at + random() * 200 });
  }
  return keyed.sort((a, b) => a.key - b.key).map((k) => k.d);
}

/** GitHub's example payloads, made about our repository, as text with placeholders. */
function template(action: 'opened' | 'synchronize'): string {
  const payload = example('pull_request', action);
  const repo = { id: 1, name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } };
  set(payload, 'number', Number(PULL_MARK));
  set(payload, 'pull_request.number', Number(PULL_MARK));
  set(payload, 'pull_request.draft', false);
  set(payload, 'pull_request.head.sha', SHA_MARK);
  set(payload, 'pull_request.head.repo', { ...repo });
  set(payload, 'pull_request.base.repo', { ...repo });
  set(payload, 'repository', { ...(payload['repository'] as object), ...repo });
  set(payload, 'installation', { id: INSTALLATION });
  return JSON.stringify(payload);
}
const TEMPLATES = { opened: template('opened'), synchronize: template('synchronize') };

const headOf = (pull: number) => createHash('sha1').update(`head-${pull}`).digest('hex');
const bodyOf = (pull: number) =>
  TEMPLATES[pull % 2 === 0 ? 'opened' : 'synchronize']
    .replaceAll(PULL_MARK, String(pull))
    .replaceAll(SHA_MARK, headOf(pull));

interface Tally {
  latencies: number[];
  statuses: Map<string, number>;
  outcomes: Map<string, number>;
  elapsedMs: number;
}
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** The server's verdict: `enqueued/queued`, `enqueued/duplicate`, `duplicate`, ... */
function outcomeOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { status?: unknown; jobs?: { status?: unknown }[] };
    const job = body.jobs?.[0]?.status;
    return [body.status, job].filter((s) => typeof s === 'string').join('/');
  } catch {
    return `http ${status}`;
  }
}

function post(agent: Agent, port: number, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; text: string }>((done, fail) => {
    const options = { host: '127.0.0.1', port, path: '/webhooks/github', method: 'POST' };
    const req = request({ ...options, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done({ status: res.statusCode ?? 0, text }));
      res.on('error', fail);
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', fail);
    req.end(body);
  });
}

/**
 * `concurrency` senders each take the next delivery until none is left: a closed loop, or
 * paced at `rate` per second. Paced latency counts from when a delivery was due, so time
 * spent waiting for a free connection is not hidden (no coordinated omission).
 */
async function load(port: number, secret: string, deliveries: Planned[], concurrency: number) {
  const rate = Number(flag('rate'));
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const tally: Tally = { latencies: [], statuses: new Map(), outcomes: new Map(), elapsedMs: 0 };
  const begin = performance.now();
  let next = 0;
  const sender = async () => {
    for (let i = next++, d = deliveries[i]; d !== undefined; i = next++, d = deliveries[i]) {
      const body = bodyOf(d.pull);
      const headers = {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': d.deliveryId,
        'x-hub-signature-256': signBody(secret, body),
      };
      const due = rate > 0 ? begin + (i * 1000) / rate : performance.now();
      if (due > performance.now()) await sleep(due - performance.now());
      const answer = await post(agent, port, headers, body).catch(() => ({ status: 0, text: '' }));
      tally.latencies.push(performance.now() - due);
      bump(tally.statuses, answer.status === 0 ? 'no answer' : String(answer.status));
      bump(tally.outcomes, `${d.kind} -> ${outcomeOf(answer.status, answer.text)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, sender));
  tally.elapsedMs = performance.now() - begin;
  agent.destroy();
  return tally;
}

async function until(what: string, probe: () => Promise<boolean> | boolean, log: () => string) {
  for (const deadline = Date.now() + 60_000; !(await probe()); ) {
    if (Date.now() > deadline) throw new Error(`${what} timed out; server log:\n${log()}`);
    await sleep(100);
  }
}

/** redis-server, the GitHub emulator (it answers the startup check) and `fluxlens serve`. */
async function startWorld(prefix: string, secret: string) {
  const redis = await startRedis();
  onCleanUp(() => redis.stop());
  // A server of FLUXLENS_TEST_REDIS_URL outlives the run: leave it as it was.
  if (!redis.canRestart) onCleanUp(() => deleteKeys(redis.url, prefix));
  const cpuProf = flag('cpu-prof');
  const serve = await spawnServe({
    name: 'fluxlens-bench-intake-',
    secret,
    env: {
      FLUXLENS_REDIS_URL: redis.url,
      FLUXLENS_REDIS_PREFIX: prefix,
      FLUXLENS_LOG_LEVEL: flag('log-level'),
    },
    nodeFlags: cpuProf ? ['--cpu-prof', `--cpu-prof-dir=${resolve(cpuProf)}`] : [],
    installation: { id: INSTALLATION, repositories: [`${OWNER}/${REPO}`] },
    graceMs: 10_000,
  });
  const { emulator, port } = serve;
  const log = () => serve.log().slice(-4000);
  const ready = () =>
    fetch(`http://127.0.0.1:${port}/readyz`)
      .then((r) => r.ok)
      .catch(() => false);
  await until('fluxlens serve readiness', ready, log);
  const checked = () => emulator.requests('GET', '/app').some((r) => r.status === 200);
  await until('the startup credentials check', checked, log);
  return { redisUrl: redis.url, emulator, port, pid: serve.pid };
}

/**
 * Waiting jobs per (PR, head), read back from BullMQ: what a worker would be given. Jobs
 * carry priorities (fair scheduling), so BullMQ keeps them in its prioritized set.
 */
async function waitingPairs(url: string, prefix: string): Promise<Map<string, number>> {
  const queue = new Queue(QUEUE_NAME, { connection: { url }, prefix });
  const pairs = new Map<string, number>();
  try {
    for (let from = 0; ; from += 1000) {
      const jobs = await queue.getJobs(['waiting', 'prioritized'], from, from + 999, true);
      for (const { data } of jobs) {
        const { pull, headSha } = ReviewJob.parse((data as { job?: unknown }).job);
        bump(pairs, `${pull.pullNumber}@${headSha ?? ''}`);
      }
      if (jobs.length < 1000) return pairs;
    }
  } finally {
    await queue.close();
  }
}

/** CPU seconds so far of the server (from /proc), Redis (INFO) and this process. */
async function cpuSeconds(redis: Redis, pid: number) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const info = await redis.info('cpu');
  const used = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1]);
  const own = process.cpuUsage();
  return {
    server: (Number(stat[11]) + Number(stat[12])) / 100, // utime + stime, in USER_HZ ticks
    redis: used('used_cpu_user') + used('used_cpu_sys'),
    client: (own.user + own.system) / 1e6,
  };
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const ms = (v: number) => `${v.toFixed(1)} ms`;
const entries = (map: Map<string, number>) => [...map].sort(([a], [b]) => a.localeCompare(b));

/** Warm-up, the measured run, then what Redis holds and what the processes used. */
async function measure(n: number, concurrency: number, shares: number[]) {
  const prefix = `bench-${randomUUID().slice(0, 8)}`;
  const secret = randomUUID();
  const world = await startWorld(prefix, secret);
  const redis = new Redis(world.redisUrl);
  onCleanUp(() => redis.disconnect());
  const warmup = plan(Number(flag('warmup')), [0, 0], 1_000_000);
  const measured = plan(n, shares, 1);
  await load(world.port, secret, warmup, concurrency);
  const before = await cpuSeconds(redis, world.pid);
  const run = await load(world.port, secret, measured, concurrency);
  const after = await cpuSeconds(redis, world.pid);
  const cpu = (k: keyof typeof after) => `${(((after[k] - before[k]) / n) * 1e6).toFixed(0)} µs`;
  const status = readFileSync(`/proc/${world.pid}/status`, 'utf8');
  const queue = createRedisQueue({ connection: world.redisUrl, prefix });
  const { waiting } = await queue.depth();
  await queue.close();
  const pairs = await waitingPairs(world.redisUrl, prefix);
  const firsts = [...measured, ...warmup].filter((d) => d.kind === 'first');
  return {
    n,
    concurrency,
    warmup: warmup.length,
    run,
    heads: firsts.length,
    /** Jobs the server said it created in the measured run: one per distinct head sent. */
    created: [...run.outcomes].reduce(
      (sum, [o, c]) => sum + (/\/(queued|replaced)$/.test(o) ? c : 0),
      0,
    ),
    measuredHeads: measured.filter((d) => d.kind === 'first').length,
    waiting,
    lost: firsts.filter((d) => !pairs.has(`${d.pull}@${headOf(d.pull)}`)).length,
    twice: [...pairs.values()].filter((count) => count > 1).length,
    githubCalls: world.emulator.requests().filter((r) => r.path !== '/app').length,
    cpu: `server ${cpu('server')}, redis ${cpu('redis')}, load ${cpu('client')}`,
    peakRss: Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]) * 1024,
    redisMemory: Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]),
  };
}

/** Prints the table; returns the targets missed, in words. */
function report(m: Awaited<ReturnType<typeof measure>>): string[] {
  const lat = [...m.run.latencies].sort((a, b) => a - b);
  const at = (p: number) => lat[Math.max(0, Math.ceil(p * lat.length) - 1)] ?? Number.NaN;
  const perSecond = (m.n / m.run.elapsedMs) * 1000;
  const rate = Number(flag('rate'));
  // Paced, the run lasts the plan plus the last answer: keeping up is 99% of the rate.
  const floor = rate > 0 ? Math.max(TARGET.perSecond, rate) * 0.99 : TARGET.perSecond;
  const refused = m.n - (m.run.statuses.get('200') ?? 0) - (m.run.statuses.get('202') ?? 0);
  const codes = entries(m.run.statuses).map(([s, c]) => `${s}: ${c}`);
  const rows: [string, string][] = [
    ['deliveries', `${m.n} measured after ${m.warmup} warm-up`],
    [
      'load',
      `${rate > 0 ? `${rate}/s offered` : 'closed loop'}, ${m.concurrency} in flight at most`,
    ],
    ['throughput', `${perSecond.toFixed(0)}/s (${(m.run.elapsedMs / 1000).toFixed(2)} s)`],
    ['latency p50 / p90', `${ms(at(0.5))} / ${ms(at(0.9))}`],
    ['latency p99 / max', `${ms(at(0.99))} / ${ms(at(1))}`],
    ['status codes', codes.join(', ')],
    ...entries(m.run.outcomes).map(([o, c]): [string, string] => [`  ${o}`, String(c)]),
    ['waiting jobs', `${m.waiting} (distinct PR heads sent: ${m.heads})`],
    ['jobs created in the run', `${m.created} (distinct PR heads: ${m.measuredHeads})`],
    ['lost / queued twice', `${m.lost} / ${m.twice}`],
    ['GitHub calls on intake', String(m.githubCalls)],
    ['CPU per delivery', m.cpu],
    ['server peak RSS', mb(m.peakRss)],
    ['redis used_memory', mb(m.redisMemory)],
    ['load average (1 min)', loadavg()[0]?.toFixed(2) ?? '?'],
  ];
  console.log(`intake benchmark: node ${process.version}, ${availableParallelism()} cores`);
  for (const [name, value] of rows) console.log(`${name.padEnd(24)} ${value}`);
  return [
    rate > 0 &&
      rate < TARGET.perSecond &&
      `offered ${rate}/s, below the ${TARGET.perSecond}/s target`,
    perSecond < floor && `throughput ${perSecond.toFixed(0)}/s < ${floor.toFixed(0)}/s`,
    at(0.99) > TARGET.p99Ms && `p99 ${ms(at(0.99))} > ${TARGET.p99Ms} ms`,
    refused > 0 && `${refused} deliveries not accepted (status other than 200/202)`,
    m.lost > 0 && `${m.lost} deliveries lost`,
    m.twice > 0 && `${m.twice} heads queued twice`,
    m.created !== m.measuredHeads && `${m.created} jobs for ${m.measuredHeads} distinct heads`,
    m.waiting !== m.heads && `${m.waiting} waiting jobs for ${m.heads} distinct heads`,
    m.githubCalls > 0 && `${m.githubCalls} GitHub calls on the intake path`,
  ].filter((missed) => typeof missed === 'string');
}

async function main(): Promise<number> {
  if (help) return (console.log(usage), 0);
  const numbers = (['deliveries', 'concurrency', 'rate', 'warmup', 'seed'] as const).map(flag);
  if (numbers.some((v) => !/^\d+$/.test(v)) || Number(flag('concurrency')) < 1) {
    throw new Error(`counts, rate and seed are whole numbers, concurrency at least 1\n${usage}`);
  }
  const shares = [flag('redelivery-share'), flag('repeat-share')].map(Number);
  if (!shares.every((share) => share >= 0 && share <= 0.4)) {
    throw new Error(`each share is a fraction from 0 to 0.4\n${usage}`);
  }
  const missed = report(
    await measure(Number(flag('deliveries')), Number(flag('concurrency')), shares),
  );
  return reportMissed(missed);
}

await runBench(main);
