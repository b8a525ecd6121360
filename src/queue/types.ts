/**
 * The contract between the server (which enqueues) and the workers (which consume): the
 * job payload, parsed at the door with zod, and the narrow interfaces both adapters
 * (BullMQ on Redis, inline in one process) implement with the same semantics.
 */
import { z } from 'zod';
import { FORGE_NAMES } from '../model/index.js';

export const PullRef = z.object({
  /** The forge the pull request lives on; absent is GitHub. */
  forge: z.enum(FORGE_NAMES).optional(),
  owner: z.string().min(1).max(100),
  repo: z.string().min(1).max(100),
  pullNumber: z.number().int().positive(),
});
export type PullRef = z.infer<typeof PullRef>;

/** Why a review was asked for; `rerender` and `check-rerequested` are explicit. */
export const ReviewReason = z.enum([
  'opened',
  'synchronize',
  'reopened',
  'ready_for_review',
  'base-changed',
  'check-rerequested',
  'comment-command',
  'api',
  'resync',
  'acknowledge',
]);
export type ReviewReason = z.infer<typeof ReviewReason>;

export const ReviewJob = z
  .object({
    pull: PullRef,
    /** The App installation that received the event; absent in token mode. */
    installationId: z.number().int().positive().optional(),
    /**
     * The head the event named. A comment command or an API call names only the PR: then it
     * is absent and the worker reviews the PR's head when the job runs.
     */
    headSha: z
      .string()
      .regex(/^[0-9a-f]{40}$/)
      .optional(),
    /** The PR's base branch name (the merge-base is computed by the worker); absent likewise. */
    baseRef: z.string().min(1).max(255).optional(),
    reason: ReviewReason,
    /**
     * An explicit re-render (API, comment command, re-requested check): bypasses the
     * head-SHA rule and replaces the stored result.
     */
    explicit: z.boolean(),
    /**
     * Someone pressed the check run's "Acknowledge findings": the review of `headSha`
     * records who acknowledged its failing findings, once the worker has checked that
     * they may push to the repository (the event does not say).
     */
    acknowledge: z.object({ login: z.string().min(1).max(100), at: z.string() }).optional(),
    /** X-GitHub-Delivery of the event that caused it, for logs. */
    deliveryId: z.string().max(100).optional(),
    /** ISO time the server accepted it. */
    requestedAt: z.string(),
  })
  .refine((job) => job.explicit || (job.headSha !== undefined && job.baseRef !== undefined), {
    message: 'a review that is not explicit names its head SHA and base branch',
  });
export type ReviewJob = z.infer<typeof ReviewJob>;

/**
 * Two revisions of a repository, each a branch name or a commit SHA: what a review without
 * a pull request compares (the MCP endpoint's branch review). The worker checks the names
 * before git sees them.
 */
export const RangeRef = z.object({
  owner: z.string().min(1).max(100),
  repo: z.string().min(1).max(100),
  base: z.string().min(1).max(255),
  head: z.string().min(1).max(255),
});
export type RangeRef = z.infer<typeof RangeRef>;

/**
 * A review of a range: it publishes nothing on GitHub; its result is stored under its job
 * id for the caller to read. The same range asked for again while one waits is coalesced.
 */
export const RangeJob = z.object({
  range: RangeRef,
  /** The App installation of the repository, when the server knows it. */
  installationId: z.number().int().positive().optional(),
  reason: z.literal('range'),
  explicit: z.literal(true),
  requestedAt: z.string(),
});
export type RangeJob = z.infer<typeof RangeJob>;

/** One folder (a cluster's entry) of a repository at one revision (a branch or a commit SHA). */
export const RenderRef = z.object({
  owner: z.string().min(1).max(100),
  repo: z.string().min(1).max(100),
  rev: z.string().min(1).max(255),
  path: z.string().min(1).max(1024),
});
export type RenderRef = z.infer<typeof RenderRef>;

/** A render of one entry (the MCP endpoint's render_entry), its output stored like a range's. */
export const RenderJob = z.object({
  render: RenderRef,
  installationId: z.number().int().positive().optional(),
  reason: z.literal('render'),
  explicit: z.literal(true),
  requestedAt: z.string(),
});
export type RenderJob = z.infer<typeof RenderJob>;

/** What the queue carries: a PR's review, a range's, or a render of one entry. */
export const QueuedJob = z.union([ReviewJob, RangeJob, RenderJob]);
export type QueuedJob = z.infer<typeof QueuedJob>;

export type EnqueueOutcome =
  /** A new job is waiting. */
  | { status: 'queued'; jobId: string }
  /** A waiting job of the same PR was replaced by this one (it names a newer head). */
  | { status: 'replaced'; jobId: string }
  /**
   * Nothing newer than what the PR's waiting job reviews: no job was added, `jobId` is the
   * waiting one, which reviews the PR's newest head when it runs.
   */
  | { status: 'coalesced'; jobId: string }
  /** Not explicit and this PR's head SHA was already queued, running or reviewed. */
  | { status: 'duplicate'; jobId?: string };

export type JobStatus = 'waiting' | 'active' | 'completed' | 'failed' | 'cancelled';

export interface JobState {
  jobId: string;
  /** The pull request a PR job reviews; absent for a range job. */
  pull?: PullRef;
  /** The revisions a range job compares; absent for a PR job. */
  range?: RangeRef;
  /** The entry and revision a render job renders. */
  render?: RenderRef;
  /** Absent for an explicit job that reviews whatever the PR's head is when it runs. */
  headSha?: string;
  status: JobStatus;
  attempts: number;
  /** Set when failed or cancelled: what went wrong, no secrets. */
  reason?: string;
}

export interface QueueDepth {
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
}

/** At most `count` calls per bucket in each window of `windowSeconds`. */
export interface RateLimit {
  count: number;
  windowSeconds: number;
}

export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

/** What the server sees of the queue. */
export interface JobQueue {
  /**
   * One job per PR: at most one running and one waiting. A job with a newer head replaces
   * the waiting one and cancels the running one, which never publishes. A request without
   * a newer head (command, API, re-requested check) is coalesced into the waiting job, or
   * else waits for the running job to finish. Jobs of a repository with fewer jobs in
   * flight go first, so one busy repository cannot hold every worker.
   */
  enqueue(job: QueuedJob): Promise<EnqueueOutcome>;
  /**
   * Counts one call against `bucket` (an API token, an installation); shared by every
   * server of a Redis queue, per process inline.
   */
  admit(bucket: string, limit: RateLimit): Promise<Admission>;
  /** The PR closed: drop its waiting job and cancel its running one; results stay. */
  cancel(pull: PullRef): Promise<void>;
  state(jobId: string): Promise<JobState | undefined>;
  depth(): Promise<QueueDepth>;
  /** Whether the backing store answers (readiness). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** Remembers deliveries by X-GitHub-Delivery for a day: a redelivery reuses the id. */
export interface DeliveryLedger {
  /** True the first time an id is seen, false for a redelivery. */
  firstSeen(deliveryId: string): Promise<boolean>;
  /** Forgets an id whose enqueue failed, so GitHub's redelivery of it is accepted. */
  forget(deliveryId: string): Promise<void>;
}

/** What a job's processor gets beside the job. */
export interface JobContext {
  jobId: string;
  /** 1 on the first try. */
  attempt: number;
  /** Aborted when the job is superseded, the PR closes, or the worker shuts down. */
  signal: AbortSignal;
  /** Checked right before publishing: false once a newer job exists for the PR. */
  isCurrent(): Promise<boolean>;
}

export type JobProcessor = (job: QueuedJob, ctx: JobContext) => Promise<void>;

/**
 * A failure the processor knows will fail again (invalid repository content, missing
 * permissions): not retried. Anything else thrown is retried with backoff.
 */
export class PermanentJobError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'PermanentJobError';
  }
}

/** Stored per PR; the latest analysis, whatever shape the caller gives it (JSON). */
export interface ResultStore {
  put(pull: PullRef, headSha: string, resultJson: string): Promise<void>;
  get(pull: PullRef): Promise<{ headSha: string; resultJson: string } | undefined>;
  /** Whether any result exists for this head (the periodic resync skips those). */
  has(pull: PullRef, headSha: string): Promise<boolean>;
  /**
   * The latest results of the most recently reviewed PRs, newest first, at most `limit`
   * (and never more than MAX_LISTED_RESULTS): the reviews page. `repository` narrows them
   * to one repository (case-insensitive, as GitHub names are).
   */
  list(query: ResultQuery): Promise<StoredResult[]>;
  /** The result of a range or render job, kept as long as its job's state. */
  putRange(jobId: string, headSha: string, resultJson: string): Promise<void>;
  getRange(jobId: string): Promise<{ headSha: string; resultJson: string } | undefined>;
}

export interface RepositoryRef {
  owner: string;
  repo: string;
}

export const MAX_LISTED_RESULTS = 200;

export interface ResultQuery {
  limit: number;
  repository?: RepositoryRef;
}

export interface StoredResult {
  /** As the store keys it: owner and repository in lower case. */
  pull: PullRef;
  headSha: string;
  /** When the result was stored (ms since the epoch). */
  storedAt: number;
  resultJson: string;
}
