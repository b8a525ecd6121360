import { randomUUID } from 'node:crypto';
import { JobInterruptedError, type JobOutcome } from './job-outcome.js';
import { jobFields, jobSubject, repositoryKey } from './pull-key.js';
import { retryDelayMs } from './queue-defaults.js';
import type { EnqueueOutcome, JobState, QueueDepth, QueuedJob } from './types.js';

export interface InlineJob {
  id: string;
  key: string;
  repository: string;
  /** Lower goes first: see SECOND_JOB. */
  priority: number;
  job: QueuedJob;
  state: JobState;
  /** Failed tries so far (BullMQ's attemptsMade). */
  failures: number;
  retryTimer?: NodeJS.Timeout;
}

interface PullState {
  /**
   * The last accepted head: a non-explicit job for it is a duplicate. A job that names no
   * head leaves it as it was: that job reviews whatever the head is when it runs.
   */
  head?: string;
  /**
   * The head of the last completed job that named one: what `head` falls back to when a
   * job dies. A job without a head does not say which head it reviewed, so it keeps it.
   */
  doneHead?: string;
  /** The job that may publish: the running one, or a waiting one with a newer head. */
  current?: string;
  /** Queued, or waiting out a retry delay. */
  waiting?: InlineJob;
}

/**
 * Added to the priority of a PR's job queued behind its running one: it goes after every
 * PR's first job; the repository's jobs in flight (at most 1023) order the rest.
 */
const SECOND_JOB = 1024;

/** Job states stay queryable for this many jobs; the oldest ended ones go first past it. */
const MAX_RECORDS = 10_000;

/**
 * The inline adapter's bookkeeping: one PR state per pull request, the ready line, the
 * running jobs' controllers and every job's state. Synchronous on purpose: in one process
 * each decision is atomic without locks. The same rules as the Redis scripts: a request
 * without a newer head is coalesced into the PR's waiting job, or waits for its running
 * one; the ready job of the repository with the fewest jobs in flight goes first.
 */
export class InlineBoard {
  private readonly pulls = new Map<string, PullState>();
  private readonly ready: InlineJob[] = [];
  private readonly running = new Map<
    string,
    { key: string; repository: string; controller: AbortController }
  >();
  private readonly records = new Map<string, InlineJob>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly retry: { attempts: number; backoffMs: number }) {}

  enqueue(job: QueuedJob): EnqueueOutcome {
    const subject = jobSubject(job);
    const { key, headSha } = subject;
    const pull = this.pullState(key);
    if (!job.explicit && headSha !== undefined && pull.head === headSha) {
      return pull.current ? { status: 'duplicate', jobId: pull.current } : { status: 'duplicate' };
    }
    // A new base needs a review as much as a new head does.
    const newHead =
      (headSha !== undefined && headSha !== pull.head) || job.reason === 'base-changed';
    if (pull.waiting && !newHead) return { status: 'coalesced', jobId: pull.waiting.id };
    const id = randomUUID();
    const replaced = this.dropWaiting(pull, `replaced by job ${id}`);
    const repository = repositoryKey(subject.repository);
    const second = !newHead && pull.current !== undefined && this.running.has(pull.current);
    const priority = (second ? SECOND_JOB : 0) + Math.min(this.inFlight(repository), 1023) + 1;
    const state = initialState(id, job);
    const entry: InlineJob = { id, key, repository, priority, job, failures: 0, state };
    if (newHead) {
      this.abortRunning(key, new JobInterruptedError('superseded', `superseded by job ${id}`));
      Object.assign(pull, { current: id, head: headSha });
    }
    pull.waiting = entry;
    this.remember(entry);
    this.ready.push(entry);
    this.notify();
    return { status: replaced ? 'replaced' : 'queued', jobId: id };
  }

  cancel(key: string): void {
    const pull = this.pulls.get(key);
    if (!pull) return;
    this.dropWaiting(pull, 'pull request closed');
    this.abortRunning(key, new JobInterruptedError('pull-closed', 'pull request closed'));
    delete pull.current;
    revertHead(pull);
  }

  /**
   * The next ready job, marked active, with its controller registered for cancellation:
   * the lowest priority first, in arrival order, skipping jobs whose PR's current job
   * still runs (they start when it ends).
   */
  take(): { entry: InlineJob; controller: AbortController } | undefined {
    let index = -1;
    this.ready.forEach((candidate, at) => {
      const best = this.ready[index];
      if (best !== undefined && best.priority <= candidate.priority) return;
      if (!this.heldBack(candidate)) index = at;
    });
    const [entry] = index < 0 ? [] : this.ready.splice(index, 1);
    if (!entry) return undefined;
    const pull = this.pullState(entry.key);
    if (pull.waiting === entry) delete pull.waiting;
    pull.current = entry.id;
    const controller = new AbortController();
    this.running.set(entry.id, { key: entry.key, repository: entry.repository, controller });
    entry.state = { ...entry.state, status: 'active', attempts: entry.failures + 1 };
    return { entry, controller };
  }

  isCurrent(entry: InlineJob): boolean {
    return this.pulls.get(entry.key)?.current === entry.id;
  }

  settle(entry: InlineJob, outcome: JobOutcome): void {
    this.running.delete(entry.id);
    const pull = this.pullState(entry.key);
    const current = pull.current === entry.id;
    if (outcome.kind === 'completed') {
      entry.state = { ...entry.state, status: 'completed' };
      const { headSha } = jobSubject(entry.job);
      if (current && headSha !== undefined) pull.doneHead = headSha;
    } else if (outcome.kind === 'cancelled' || !current) {
      // A job that is no longer current can only complete or cancel: it never retries.
      const reason = outcome.kind === 'cancelled' ? outcome.reason : 'superseded';
      entry.state = { ...entry.state, status: 'cancelled', reason };
    } else if (pull.waiting !== undefined && pull.waiting !== entry) {
      // A retry gives way to the job already waiting: that one reviews the newest head.
      const reason = `superseded by job ${pull.waiting.id}`;
      entry.state = { ...entry.state, status: 'cancelled', reason };
    } else if (outcome.kind === 'interrupted') {
      entry.state = { ...entry.state, status: 'waiting' };
      pull.waiting = entry;
      this.ready.unshift(entry);
    } else if (outcome.kind === 'transient' && entry.failures + 1 < this.retry.attempts) {
      entry.failures += 1;
      entry.state = { ...entry.state, status: 'waiting' };
      pull.waiting = entry;
      const delay = retryDelayMs(this.retry.backoffMs, entry.failures);
      entry.retryTimer = setTimeout(() => this.retryNow(entry), delay);
    } else {
      if (outcome.kind === 'transient') entry.failures += 1;
      entry.state = { ...entry.state, status: 'failed', reason: outcome.reason };
      revertHead(pull);
    }
    this.notify();
  }

  /** Interrupts every running job (shutdown); each goes back to the front of the line. */
  interrupt(ids: Iterable<string>): void {
    const reason = new JobInterruptedError('shutdown', 'worker shutting down');
    for (const id of ids) this.running.get(id)?.controller.abort(reason);
  }

  state(jobId: string): JobState | undefined {
    const state = this.records.get(jobId)?.state;
    return state && structuredClone(state);
  }

  depth(): QueueDepth {
    let delayed = 0;
    let failed = 0;
    for (const pull of this.pulls.values()) if (pull.waiting?.retryTimer) delayed += 1;
    for (const entry of this.records.values()) if (entry.state.status === 'failed') failed += 1;
    return { waiting: this.ready.length, active: this.running.size, delayed, failed };
  }

  onReady(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops retry timers; what is still waiting stays unrun (the inline queue is not durable). */
  close(): void {
    for (const pull of this.pulls.values()) clearTimeout(pull.waiting?.retryTimer);
    this.listeners.clear();
  }

  private retryNow(entry: InlineJob): void {
    delete entry.retryTimer;
    this.ready.push(entry);
    this.notify();
  }

  private dropWaiting(pull: PullState, reason: string): boolean {
    const entry = pull.waiting;
    if (!entry) return false;
    clearTimeout(entry.retryTimer);
    delete entry.retryTimer;
    const index = this.ready.indexOf(entry);
    if (index >= 0) this.ready.splice(index, 1);
    entry.state = { ...entry.state, status: 'cancelled', reason };
    delete pull.waiting;
    return true;
  }

  /** Whether the job's PR has another job running that may still publish. */
  private heldBack(entry: InlineJob): boolean {
    const current = this.pulls.get(entry.key)?.current;
    return current !== entry.id && current !== undefined && this.running.has(current);
  }

  private inFlight(repository: string): number {
    let count = 0;
    for (const entry of this.ready) if (entry.repository === repository) count += 1;
    for (const run of this.running.values()) if (run.repository === repository) count += 1;
    return count;
  }

  private abortRunning(key: string, reason: JobInterruptedError): void {
    for (const run of this.running.values()) if (run.key === key) run.controller.abort(reason);
  }

  private pullState(key: string): PullState {
    let pull = this.pulls.get(key);
    if (!pull) this.pulls.set(key, (pull = {}));
    return pull;
  }

  private remember(entry: InlineJob): void {
    this.records.set(entry.id, entry);
    if (this.records.size <= MAX_RECORDS) return;
    for (const [id, old] of this.records) {
      if (['completed', 'failed', 'cancelled'].includes(old.state.status)) {
        this.records.delete(id);
        return;
      }
    }
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

function initialState(jobId: string, job: QueuedJob): JobState {
  const state: JobState = { jobId, ...jobFields(job), status: 'waiting', attempts: 0 };
  const { headSha } = jobSubject(job);
  if (headSha !== undefined) state.headSha = headSha;
  return state;
}

/** A job that will not complete leaves its head unreviewed: the next event may retry it. */
function revertHead(pull: PullState): void {
  if (pull.doneHead === undefined) delete pull.head;
  else pull.head = pull.doneHead;
}
