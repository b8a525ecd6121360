/** What a review needs beside its job: the outside world, behind narrow interfaces. */
import type { RenderMachine } from '../analysis/index.js';
import type { ForgeClient, ForgeWriter } from '../forges/index.js';
import type { Logger, LogSink } from '../logger.js';
import type { ForgeName } from '../model/index.js';
import type { JobContext, PullRef, ResultStore, ReviewJob } from '../queue/index.js';
import type { ToolRunner } from '../tool-runner.js';

/** The part of a GitHub client a review uses (github/'s GitHubClient is one). */
export type ReviewGitHub = ForgeClient;

/** A forge besides GitHub that reviews publish on: its client and where git fetches from. */
export interface ReviewForge {
  client: ForgeClient;
  /** Base of clone URLs (`https://forge.example.com`). */
  gitUrl: string;
}

export interface ReviewSettings {
  /** App mode publishes check runs; token mode publishes commit statuses instead. */
  mode: 'app' | 'token';
  /** When the sticky comment is written. */
  comment: 'always' | 'changes' | 'never';
  renderForks: boolean;
  /** Charts only from the cache and the repository (FLUXLENS_OFFLINE). */
  offline: boolean;
  /** Base of clone URLs (`https://github.com`). */
  gitUrl: string;
  /** Holds the mirrors and the scratch folders. */
  cacheDir: string;
  /** Attempts the queue makes; the last one reports its failure on the PR. */
  attempts: number;
  /** Where the HTML report is served; comments link to it with a signed URL when set. */
  reportLink?: { publicUrl: string; signingKey: string; validForMs: number };
}

/** Where a review's durations and counts go (the worker's Prometheus registry). */
export interface ReviewMetrics {
  /** `forge` is set for pull requests of forges other than GitHub. */
  stage(stage: ReviewStage, milliseconds: number, forge?: ForgeName): void;
  renderErrors(count: number, forge?: ForgeName): void;
}

export type ReviewStage = 'fetch' | 'render-base' | 'render-head' | 'diff' | 'publish' | 'total';

export interface ReviewDeps {
  /** Absent in a deployment that serves only other forges. */
  github?: ReviewGitHub;
  /** Other forges, by name; a job of a forge not here fails as a setup problem. */
  forges?: { gitea?: ReviewForge };
  runner: ToolRunner;
  machine: RenderMachine;
  results: ResultStore;
  settings: ReviewSettings;
  /** The root each job's child logger comes from. */
  logger: Logger;
  metrics?: ReviewMetrics;
  /** Milliseconds, for durations; a monotonic clock by default. */
  now?: () => number;
  /** Wall-clock time, for link expiry. */
  clock?: () => Date;
}

/**
 * Where one review publishes: the PR's head on its forge, in the forge's mode (check runs
 * only on GitHub with an App; a commit status otherwise).
 */
export interface Target {
  writer: ForgeWriter;
  pull: PullRef;
  headSha: string;
  settings: Pick<ReviewSettings, 'mode' | 'comment'>;
}

/** One review in progress, its PR's head known. */
export interface Run {
  job: ReviewJob;
  ctx: JobContext;
  deps: ReviewDeps;
  /** The job's logger: job id, PR, attempt and head SHA on every line. */
  log: LogSink;
  target: Target;
}

/** A review that failed; `target` is there when the PR's head was found. */
export interface Failed {
  ctx: JobContext;
  deps: ReviewDeps;
  log: LogSink;
  target?: Target;
}
