/**
 * In-memory stand-ins for the queue contract (JobQueue, DeliveryLedger, ResultStore) at
 * the seam the server uses. They record what the server asked for; `down` makes every
 * call fail the way an unreachable Redis does, `enqueueFailures` only the next enqueues.
 */
import type {
  Admission,
  DeliveryLedger,
  EnqueueOutcome,
  JobQueue,
  JobState,
  PullRef,
  QueueDepth,
  ResultQuery,
  ResultStore,
  ReviewJob,
  StoredResult,
} from '../../../../src/queue/types.js';

export class FakeQueue implements JobQueue {
  readonly enqueued: ReviewJob[] = [];
  readonly cancelled: PullRef[] = [];
  readonly states = new Map<string, JobState>();
  depthNow: QueueDepth = { waiting: 0, active: 0, delayed: 0, failed: 0 };
  down = false;
  /** How many of the next enqueue calls fail as if Redis dropped the connection. */
  enqueueFailures = 0;
  /** Buckets the server counted calls against, in order. */
  readonly admissions: string[] = [];
  /** When set, every admission is refused with this Retry-After. */
  refuseAfterSeconds: number | undefined;

  async admit(bucket: string): Promise<Admission> {
    this.failWhenDown();
    this.admissions.push(bucket);
    const retryAfterSeconds = this.refuseAfterSeconds;
    return retryAfterSeconds === undefined
      ? { admitted: true }
      : { admitted: false, retryAfterSeconds };
  }

  async enqueue(job: ReviewJob): Promise<EnqueueOutcome> {
    this.failWhenDown();
    if (this.enqueueFailures > 0) {
      this.enqueueFailures -= 1;
      throw new Error('Connection is closed.');
    }
    this.enqueued.push(job);
    const jobId = `job-${this.enqueued.length}`;
    const state: JobState = { jobId, pull: job.pull, status: 'waiting', attempts: 0 };
    if (job.headSha !== undefined) state.headSha = job.headSha;
    this.states.set(jobId, state);
    return { status: 'queued', jobId };
  }

  async cancel(pull: PullRef): Promise<void> {
    this.failWhenDown();
    this.cancelled.push(pull);
  }

  async state(jobId: string): Promise<JobState | undefined> {
    this.failWhenDown();
    return this.states.get(jobId);
  }

  async depth(): Promise<QueueDepth> {
    this.failWhenDown();
    return this.depthNow;
  }

  async ping(): Promise<boolean> {
    return !this.down;
  }

  async close(): Promise<void> {}

  private failWhenDown(): void {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
  }
}

export class FakeLedger implements DeliveryLedger {
  readonly seen = new Set<string>();

  async firstSeen(deliveryId: string): Promise<boolean> {
    if (this.seen.has(deliveryId)) return false;
    this.seen.add(deliveryId);
    return true;
  }

  async forget(deliveryId: string): Promise<void> {
    this.seen.delete(deliveryId);
  }
}

export class FakeResults implements ResultStore {
  private readonly byPull = new Map<string, { headSha: string; resultJson: string }>();
  /** Every PR a result was asked for. */
  readonly reads: PullRef[] = [];
  /** Every listing asked for. */
  readonly listed: ResultQuery[] = [];

  async put(pull: PullRef, headSha: string, resultJson: string): Promise<void> {
    this.byPull.delete(key(pull));
    this.byPull.set(key(pull), { headSha, resultJson });
  }

  async get(pull: PullRef): Promise<{ headSha: string; resultJson: string } | undefined> {
    this.reads.push(pull);
    return this.byPull.get(key(pull));
  }

  async has(pull: PullRef, headSha: string): Promise<boolean> {
    return this.byPull.get(key(pull))?.headSha === headSha;
  }

  /** Every result put, newest first, `storedAt` counting puts; `repository` as given. */
  async list(query: ResultQuery): Promise<StoredResult[]> {
    this.listed.push(query);
    const all = [...this.byPull].map(([k, stored], i) => ({ k, stored, i })).reverse();
    const wanted = query.repository && `${query.repository.owner}/${query.repository.repo}#`;
    return all
      .filter(({ k }) => !wanted || k.startsWith(wanted.toLowerCase()))
      .slice(0, query.limit)
      .map(({ k, stored, i }) => {
        const [, owner = '', repo = '', number = '0'] = /^(.*)\/(.*)#(\d+)$/.exec(k) ?? [];
        return { pull: { owner, repo, pullNumber: Number(number) }, ...stored, storedAt: i };
      });
  }

  private readonly byJob = new Map<string, { headSha: string; resultJson: string }>();

  async putRange(jobId: string, headSha: string, resultJson: string): Promise<void> {
    this.byJob.set(jobId, { headSha, resultJson });
  }

  async getRange(jobId: string): Promise<{ headSha: string; resultJson: string } | undefined> {
    return this.byJob.get(jobId);
  }
}

function key(pull: PullRef): string {
  return `${pull.owner}/${pull.repo}#${pull.pullNumber}`.toLowerCase();
}
