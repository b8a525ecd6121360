/**
 * Webhook bodies meant to exhaust memory, sent to a real `fluxlens serve` (inline queue, no
 * credentials needed by the sender). Three scenarios, each on a fresh server:
 * - `bad`: 32 connections at once each send a whole 24 MiB body with a wrong signature.
 * - `stalled`: 40 connections each declare a 25 MiB body, send 20 MiB of it and stop.
 * - `stalled-small`: 40 connections each declare 200 KiB (under every event's limit and
 *   the large-body size), send 100 KiB and stop: only the body timeout can end them.
 * Figures: the server's RSS before, at its highest and after each scenario (sampled from
 * /proc every 50 ms), the answers, and for stalled bodies when the server closed them.
 * Targets (issue #25): bad bodies raise RSS by under 50 MiB; stalled bodies are closed
 * within the body timeout and raise RSS by under 50 MiB.
 * `node --import tsx bench/hostile-bodies.ts --help`; exits 1 when a target is missed, 2
 * when the run itself fails.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { benchFlags, reportMissed, runBench, spawnServe } from './support/harness.js';

const OPTIONS = {
  scenario: ['bad,stalled,stalled-small', 'comma-separated: bad, stalled, stalled-small'],
  'bad-bodies': ['32', 'parallel bad-signature bodies'],
  'bad-mib': ['24', 'MiB in each bad body'],
  'stalled-bodies': ['40', 'stalled bodies'],
  'stalled-declared-kib': ['25600', 'KiB each stalled body declares in Content-Length'],
  'stalled-sent-kib': ['20480', 'KiB each stalled body sends before it stops'],
  'stalled-wait': ['60', 'seconds to wait for the server to close the stalled bodies'],
  'body-timeout': [undefined, "the server's FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS"],
} satisfies Record<string, [string | undefined, string]>;
const { help, flag, usage } = benchFlags(
  OPTIONS,
  'node --import tsx bench/hostile-bodies.ts [options]',
);

const MIB = 1024 * 1024;
const TARGET_RISE_MIB = 50;

/** A fresh `fluxlens serve` without Redis, up and settled. */
async function startServer(secret: string) {
  const timeout = flag('body-timeout');
  const serve = await spawnServe({
    name: 'fluxlens-bench-bodies-',
    secret,
    env: {
      FLUXLENS_LOG_LEVEL: 'warn',
      ...(timeout === '' ? {} : { FLUXLENS_WEBHOOK_BODY_TIMEOUT_SECONDS: timeout }),
    },
  });
  for (const deadline = Date.now() + 60_000; ; await sleep(100)) {
    const up = await fetch(`http://127.0.0.1:${serve.port}/healthz`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    if (Date.now() > deadline) throw new Error(`serve did not start:\n${serve.log()}`);
  }
  // Let startup settle (credentials check, first GC) before the baseline is taken.
  await sleep(2000);
  return serve;
}

const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** Samples RSS every 50 ms until stopped; the highest value seen. */
function sampleRss(pid: number) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // The process is gone: the peak so far stands.
    }
  }, 50);
  return () => (clearInterval(timer), peak);
}

function head(port: number, event: string, length: number): string {
  return [
    'POST /webhooks/github HTTP/1.1',
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    `Content-Length: ${length}`,
    `X-GitHub-Event: ${event}`,
    `X-GitHub-Delivery: ${randomUUID()}`,
    `X-Hub-Signature-256: sha256=${'0'.repeat(64)}`,
    '',
    '',
  ].join('\r\n');
}

interface Sent {
  /** The status line's code, or 'none' when the server closed without answering. */
  status: string;
  /** Milliseconds from the first byte sent to the server closing the connection. */
  closedAfterMs: number | undefined;
}

/**
 * One raw connection: the head, then `sent` bytes of body in 64 KiB writes (honouring
 * backpressure), then nothing more. Resolves when the server closes it or `waitMs` passes.
 */
function send(port: number, declared: number, sent: number, waitMs: number): Promise<Sent> {
  return new Promise((done) => {
    const begin = performance.now();
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const result: Sent = { status: 'none', closedAfterMs: undefined };
    let gaveUp = false;
    const timer = setTimeout(() => {
      gaveUp = true;
      socket.destroy();
      done(result);
    }, waitMs);
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      result.status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? result.status;
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (!gaveUp) result.closedAfterMs = performance.now() - begin;
      done(result);
    });
    socket.on('connect', async () => {
      socket.write(head(port, 'pull_request', declared));
      const chunk = Buffer.alloc(64 * 1024, 'x');
      chunk.write('{"pad":"');
      for (let left = sent; left > 0 && !socket.destroyed; left -= chunk.length) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        if (!socket.write(piece)) await drainedOrClosed(socket);
      }
    });
  });
}

function drainedOrClosed(socket: Socket): Promise<void> {
  return new Promise((done) => {
    const settle = () => {
      socket.off('drain', settle);
      socket.off('close', settle);
      done();
    };
    socket.on('drain', settle);
    socket.on('close', settle);
  });
}

interface Scenario {
  name: string;
  baseline: number;
  peak: number;
  after: number;
  answers: Map<string, number>;
  closedMs: number[];
  open: number;
}

async function scenario(
  name: string,
  count: number,
  declared: number,
  sent: number,
  waitMs: number,
): Promise<Scenario> {
  const secret = randomUUID();
  const server = await startServer(secret);
  const baseline = rssOf(server.pid);
  const peak = sampleRss(server.pid);
  const results = await Promise.all(
    Array.from({ length: count }, () => send(server.port, declared, sent, waitMs)),
  );
  await sleep(1000);
  const after = rssOf(server.pid);
  const answers = new Map<string, number>();
  for (const r of results) answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
  const closedMs = results.flatMap((r) => (r.closedAfterMs === undefined ? [] : [r.closedAfterMs]));
  const result = {
    name,
    baseline,
    peak: peak(),
    after,
    answers,
    closedMs: closedMs.sort((a, b) => a - b),
    open: results.length - closedMs.length,
  };
  await server.stop();
  return result;
}

const mib = (bytes: number) => `${(bytes / MIB).toFixed(0)} MiB`;
const kib = (bytes: number) => (bytes >= MIB ? mib(bytes) : `${(bytes / 1024).toFixed(0)} KiB`);

function report(s: Scenario, waitMs: number): string[] {
  const rise = (s.peak - s.baseline) / MIB;
  const answers = [...s.answers].map(([code, n]) => `${code}: ${n}`).join(', ');
  const closed =
    s.closedMs.length === 0
      ? 'none'
      : `${s.closedMs.length}, after ${(s.closedMs[0]! / 1000).toFixed(1)} to ${(s.closedMs.at(-1)! / 1000).toFixed(1)} s`;
  const rows: [string, string][] = [
    ['RSS before / peak / after', `${mib(s.baseline)} / ${mib(s.peak)} / ${mib(s.after)}`],
    ['RSS rise at peak', `${rise.toFixed(0)} MiB`],
    ['answers', answers],
    ['closed by the server', closed],
    ['still open', `${s.open} after ${waitMs / 1000} s`],
  ];
  console.log(`\n${s.name}`);
  for (const [key, value] of rows) console.log(`  ${key.padEnd(28)} ${value}`);
  return [
    rise >= TARGET_RISE_MIB && `${s.name}: RSS rose ${rise.toFixed(0)} MiB`,
    s.open > 0 && `${s.name}: ${s.open} connections still open after ${waitMs / 1000} s`,
  ].filter((m) => typeof m === 'string');
}

async function main(): Promise<number> {
  if (help) return (console.log(usage), 0);
  const scenarios = flag('scenario').split(',');
  console.log(`hostile bodies: node ${process.version}, ${availableParallelism()} cores`);
  const missed: string[] = [];
  if (scenarios.includes('bad')) {
    const n = Number(flag('bad-bodies'));
    const size = Number(flag('bad-mib')) * MIB;
    const waitMs = 120_000;
    const s = await scenario(`${n} bad-signature bodies of ${mib(size)}`, n, size, size, waitMs);
    missed.push(...report(s, waitMs));
  }
  const stalled = async (declared: number, sent: number) => {
    const n = Number(flag('stalled-bodies'));
    const waitMs = Number(flag('stalled-wait')) * 1000;
    const name = `${n} bodies declaring ${kib(declared)}, stalled after ${kib(sent)}`;
    missed.push(...report(await scenario(name, n, declared, sent, waitMs), waitMs));
  };
  if (scenarios.includes('stalled')) {
    await stalled(
      Number(flag('stalled-declared-kib')) * 1024,
      Number(flag('stalled-sent-kib')) * 1024,
    );
  }
  if (scenarios.includes('stalled-small')) await stalled(200 * 1024, 100 * 1024);
  return reportMissed(missed);
}

await runBench(main);
