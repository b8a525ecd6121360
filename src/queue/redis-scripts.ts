import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { JobStatus } from './types.js';

/*
 * The per-PR decisions, each one Lua script so two servers or workers deciding for the
 * same PR at once cannot interleave. The PR hash holds:
 *   head      last accepted head SHA (dedupe)
 *   doneHead  head of the last completed job (what `head` falls back to when a job dies)
 *   current   the newest accepted job id; only it may run to the end and publish
 *   waiting   the job id queued (or waiting out a retry) for the PR
 * Job hashes hold the state the API reports: pull, headSha, status, attempts, reason.
 * A job that names no head (comment command, API call; passed as '') is explicit: it is
 * never a duplicate, and it leaves head, doneHead and its own headSha unset, since which
 * head it reviews is only known when it runs.
 */

const ENQUEUE = `
local head = redis.call('HGET', KEYS[1], 'head')
if ARGV[3] == '0' and ARGV[2] ~= '' and head == ARGV[2] then
  return {'duplicate', redis.call('HGET', KEYS[1], 'current') or ''}
end
local waiting = redis.call('HGET', KEYS[1], 'waiting') or ''
redis.call('HSET', KEYS[1], 'current', ARGV[1], 'waiting', ARGV[1])
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], 'head', ARGV[2]) end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('HSET', KEYS[2], 'pull', ARGV[4], 'status', 'waiting', 'attempts', '0')
if ARGV[2] ~= '' then redis.call('HSET', KEYS[2], 'headSha', ARGV[2]) end
redis.call('EXPIRE', KEYS[2], ARGV[5])
return {'accepted', waiting}`;

const REVERT_HEAD = `
local function revertHead(key)
  local done = redis.call('HGET', key, 'doneHead')
  if done then redis.call('HSET', key, 'head', done) else redis.call('HDEL', key, 'head') end
end`;

const CANCEL = `${REVERT_HEAD}
local waiting = redis.call('HGET', KEYS[1], 'waiting') or ''
redis.call('HDEL', KEYS[1], 'current', 'waiting')
revertHead(KEYS[1])
return waiting`;

/**
 * Returns '' when the job may run, else why it may not. A job already settled is not run
 * again: BullMQ hands out a job whose lock ran out while it ran (Redis away longer than
 * the lock) a second time, even when that first run has finished and published.
 */
const START = `
local settled = redis.call('HGET', KEYS[2], 'status')
if settled == 'completed' or settled == 'failed' or settled == 'cancelled' then
  return 'already ' .. settled
end
local current = redis.call('HGET', KEYS[1], 'current')
if current ~= ARGV[1] then
  local reason = current and ('superseded by job ' .. current) or 'pull request closed'
  redis.call('HSET', KEYS[2], 'status', 'cancelled', 'reason', reason)
  return reason
end
if redis.call('HGET', KEYS[1], 'waiting') == ARGV[1] then redis.call('HDEL', KEYS[1], 'waiting') end
redis.call('HSET', KEYS[2], 'status', 'active', 'attempts', ARGV[2])
return ''`;

/** Records how a job ended; a job that is no longer current can only complete or cancel. */
const SETTLE = `${REVERT_HEAD}
local pull, id, status, reason = KEYS[1], ARGV[1], ARGV[2], ARGV[3]
local current = redis.call('HGET', pull, 'current') == id
if status ~= 'completed' and not current then
  status = 'cancelled'
  if reason == '' or ARGV[2] ~= 'cancelled' then reason = 'superseded' end
end
if current and status == 'completed' and ARGV[4] ~= '' then
  redis.call('HSET', pull, 'doneHead', ARGV[4])
end
if current and status == 'waiting' then redis.call('HSET', pull, 'waiting', id) end
if current and status == 'failed' then
  revertHead(pull)
  if redis.call('HGET', pull, 'waiting') == id then redis.call('HDEL', pull, 'waiting') end
end
redis.call('HSET', KEYS[2], 'status', status)
if reason == '' then redis.call('HDEL', KEYS[2], 'reason') else redis.call('HSET', KEYS[2], 'reason', reason) end
return status`;

const EnqueueReplySchema = z.tuple([z.enum(['duplicate', 'accepted']), z.string()]);
const SettledSchema = z.enum(['waiting', 'completed', 'failed', 'cancelled']);

export interface EnqueueArgs {
  pullKey: string;
  jobKey: string;
  jobId: string;
  /** Absent for a job that names only the PR. */
  headSha: string | undefined;
  explicit: boolean;
  pullJson: string;
  jobTtlSeconds: number;
  pullTtlSeconds: number;
}

export type EnqueueDecision =
  | { kind: 'duplicate'; currentJobId: string }
  | { kind: 'accepted'; previousWaiting: string };

export async function enqueueScript(redis: Redis, a: EnqueueArgs): Promise<EnqueueDecision> {
  const argv = [a.jobId, a.headSha ?? '', a.explicit ? '1' : '0', a.pullJson];
  const reply = await redis.eval(ENQUEUE, 2, a.pullKey, a.jobKey, ...argv, ...ttls(a));
  const [kind, id] = EnqueueReplySchema.parse(reply);
  return kind === 'duplicate' ? { kind, currentJobId: id } : { kind, previousWaiting: id };
}

function ttls(a: EnqueueArgs): string[] {
  return [String(a.jobTtlSeconds), String(a.pullTtlSeconds)];
}

/** Forgets the PR's current and waiting job; returns the waiting job's id, or ''. */
export async function cancelScript(redis: Redis, pullKey: string): Promise<string> {
  return z.string().parse(await redis.eval(CANCEL, 1, pullKey));
}

/** '' when the job is still current and now active; otherwise why it was cancelled. */
export async function startScript(
  redis: Redis,
  keys: { pullKey: string; jobKey: string },
  jobId: string,
  attempt: number,
): Promise<string> {
  const reply = await redis.eval(START, 2, keys.pullKey, keys.jobKey, jobId, String(attempt));
  return z.string().parse(reply);
}

export type SettleStatus = Exclude<JobStatus, 'active'>;

export async function settleScript(
  redis: Redis,
  keys: { pullKey: string; jobKey: string },
  job: { jobId: string; headSha: string | undefined },
  status: SettleStatus,
  reason = '',
): Promise<SettleStatus> {
  const argv = [job.jobId, status, reason, job.headSha ?? ''];
  const reply = await redis.eval(SETTLE, 2, keys.pullKey, keys.jobKey, ...argv);
  return SettledSchema.parse(reply);
}
