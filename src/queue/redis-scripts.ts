import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { JobStatus } from './types.js';

/*
 * The per-PR decisions, each one Lua script so two servers or workers deciding for the
 * same PR at once cannot interleave. The PR hash holds:
 *   head      last accepted head SHA (dedupe)
 *   doneHead  head of the last completed job (what `head` falls back to when a job dies)
 *   current   the job that may publish: the running one, or a waiting one with a newer head
 *   waiting   the job id queued (or waiting out a retry) for the PR; at most one
 *   running   the job id a worker runs for the PR; at most one that is still current
 * Job hashes hold the state the API reports: pull, headSha, status, attempts, reason, and
 * `parked` while the job waits for its PR's running job to end.
 * A request that brings no newer head nor a new base (a comment command, an API call, a
 * re-requested check, passed with their head or '') is coalesced into the PR's waiting job when
 * there is one: that job reviews the newest head anyway. Without one it queues a job that
 * runs after the PR's running job, which it leaves to finish. Only a newer head or a new
 * base supersedes: the running job is cancelled and the new job may start at once.
 * Priorities make the scheduling fair: a PR's second job (queued behind its running one)
 * goes after every PR's first job, and among those the repository with fewer live jobs
 * goes first (its jobs sit in a sorted set), so neither a flood on one PR nor many PRs of
 * one repository can hold every worker.
 */

/**
 * A script of lua/, read when this module loads, so that a build without them fails at
 * startup. Beside this module in src/ and in tsc's dist/src/; the CLI bundle carries its own.
 */
function script(name: string): string {
  return readFileSync(new URL(`lua/${name}.lua`, import.meta.url), 'utf8');
}

const ENQUEUE = script('enqueue');
const REVERT_HEAD = script('revert-head');
const CANCEL = REVERT_HEAD + script('cancel');

/**
 * Returns '' when the job may run, 'busy' when it waits for its PR's running job, else why
 * it may not run. A job already settled is not run again: BullMQ hands out a job whose
 * lock ran out while it ran (Redis away longer than the lock) a second time, even when
 * that first run has finished and published. A running job counts while its worker keeps
 * its `alive` key fresh; one whose worker died does not hold its PR up.
 */
const START = script('start');

/**
 * Records how a job ended; a job that is no longer current can only complete or cancel,
 * and a retry gives way to a job already waiting (that one reviews the newest head).
 * Returns the status and the PR's parked job, for the worker to start it now.
 */
const SETTLE = REVERT_HEAD + script('settle');

const EnqueueReply = z.tuple([
  z.enum(['duplicate', 'coalesced', 'accepted']),
  z.string(),
  z.coerce.number().int().nonnegative(),
]);
const Settled = z.tuple([z.enum(['waiting', 'completed', 'failed', 'cancelled']), z.string()]);

/** The keys of one job's decisions: its PR, itself, its repository's live jobs. */
export interface JobKeys {
  pullKey: string;
  jobKey: string;
  repoKey: string;
}

export interface EnqueueArgs extends JobKeys {
  jobId: string;
  /** Absent for a job that names only the PR. */
  headSha: string | undefined;
  explicit: boolean;
  /** The job's PR, or its range (RangeRef), as JSON: what its state reports. */
  pullJson: string;
  jobTtlSeconds: number;
  pullTtlSeconds: number;
  /** A job counts towards its repository's load at most this long (a lost settle). */
  repoWindowMs: number;
  /** The PR's base branch changed: like a newer head, whatever the head says. */
  newBase: boolean;
}

export type EnqueueDecision =
  | { kind: 'duplicate'; currentJobId: string }
  | { kind: 'coalesced'; waitingJobId: string }
  /** `priority` on BullMQ's scale (1 goes first); see fairness above. */
  | { kind: 'accepted'; previousWaiting: string; priority: number };

export async function enqueueScript(redis: Redis, a: EnqueueArgs): Promise<EnqueueDecision> {
  const argv = [a.jobId, a.headSha ?? '', a.explicit ? '1' : '0', a.pullJson];
  const ttls = [String(a.jobTtlSeconds), String(a.pullTtlSeconds)];
  const window = [String(Date.now()), String(a.repoWindowMs), a.newBase ? '1' : '0'];
  const keys = [a.pullKey, a.jobKey, a.repoKey];
  const reply = await redis.eval(ENQUEUE, 3, ...keys, ...argv, ...ttls, ...window);
  const [kind, id, priority] = EnqueueReply.parse(reply);
  switch (kind) {
    case 'duplicate':
      return { kind, currentJobId: id };
    case 'coalesced':
      return { kind, waitingJobId: id };
    case 'accepted':
      return { kind, previousWaiting: id, priority };
  }
}

/** Forgets the PR's current and waiting job; returns the waiting job's id, or ''. */
export async function cancelScript(redis: Redis, pullKey: string): Promise<string> {
  return z.string().parse(await redis.eval(CANCEL, 1, pullKey));
}

export type StartDecision =
  | { kind: 'run' }
  /** Another job of the PR is running and current: this one waits for it to end. */
  | { kind: 'busy' }
  | { kind: 'refused'; reason: string };

/** Where the per-job keys the scripts build themselves live. */
export interface JobKeyPrefixes {
  /** `${alive}${jobId}` exists while a worker runs the job. */
  alive: string;
  /** `${job}${jobId}` is a job's hash. */
  job: string;
}

export async function startScript(
  redis: Redis,
  keys: JobKeys,
  prefixes: JobKeyPrefixes,
  job: { jobId: string; attempt: number; aliveMs: number },
): Promise<StartDecision> {
  const reply = await redis.eval(
    START,
    3,
    keys.pullKey,
    keys.jobKey,
    keys.repoKey,
    job.jobId,
    String(job.attempt),
    prefixes.alive,
    String(job.aliveMs),
  );
  const text = z.string().parse(reply);
  if (text === '') return { kind: 'run' };
  return text === 'busy' ? { kind: 'busy' } : { kind: 'refused', reason: text };
}

export type SettleStatus = Exclude<JobStatus, 'active'>;

/** How the job ended, and the PR's parked job to start now ('' when none). */
export async function settleScript(
  redis: Redis,
  keys: JobKeys,
  prefixes: JobKeyPrefixes,
  job: { jobId: string; headSha: string | undefined },
  status: SettleStatus,
  reason = '',
): Promise<{ status: SettleStatus; parked: string }> {
  const argv = [job.jobId, status, reason, job.headSha ?? '', prefixes.alive, prefixes.job];
  const reply = await redis.eval(SETTLE, 3, keys.pullKey, keys.jobKey, keys.repoKey, ...argv);
  const [settled, parked] = Settled.parse(reply);
  return { status: settled, parked };
}
