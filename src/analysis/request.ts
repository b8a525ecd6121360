/**
 * What one analysis is asked to do, as plain data a CLI flag set or a job payload carries
 * (parsed at the door), and what it is given to do it with.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import type { ResolvedRevisions } from '../git/index.js';
import {
  DEFAULT_ENGINE,
  EngineName,
  RenderOptions,
  SourceMapping,
  type EngineDeps,
  type RenderEngine,
  type RenderMachine,
  type RenderProgress,
} from '../render/index.js';
import type { AnalysisResult, FailOn } from '../model/index.js';
import type { ToolRunner } from '../tool-runner.js';
import type { LogSink } from '../logger.js';

export const AnalysisRequest = z
  .object({
    /** A git repository (its root, or a bare mirror); both revisions are read from its objects. */
    repoDir: z.string().min(1),
    /** The base branch; default: the upstream default branch. The merge-base with head is used. */
    base: z.string().min(1).optional(),
    /** Default `HEAD`. */
    head: z.string().min(1).optional(),
    /** Entry folders, each one cluster; used when the policy names no clusters. */
    paths: z.array(z.string().min(1)).default([]),
    engine: EngineName.default(DEFAULT_ENGINE),
    render: RenderOptions.default(RenderOptions.parse({})),
    /** Local folders standing in for Flux sources other than the repository itself. */
    sources: z.array(SourceMapping).default([]),
    /** The repository's own URL, to recognise GitRepositories that point at it. */
    repoUrl: z.string().min(1).optional(),
    /** How reports name the revisions, when not as `base` and `head` were given. */
    labels: z
      .object({ base: z.string().min(1).max(255), head: z.string().min(1).max(255) })
      .strict()
      .optional(),
  })
  .strict();

export type AnalysisRequest = z.infer<typeof AnalysisRequest>;

/**
 * A request from JSON (a job payload, a test). A bad one is a UsageError naming each field:
 * the same payload fails the same way on every try, so it is not worth a retry.
 */
export function parseAnalysisRequest(value: unknown): AnalysisRequest {
  const parsed = AnalysisRequest.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => {
    const at = issue.path.join('.');
    return at ? `${at}: ${issue.message}` : issue.message;
  });
  throw new UsageError(`invalid analysis request: ${problems.join('; ')}`);
}

export interface AnalysisOutcome {
  result: AnalysisResult;
  /** The level at which the base's policy fails the review (the gate's threshold). */
  failOn: FailOn;
  /** The base's policy lets an acknowledgement carry to later heads of the PR. */
  carryAcknowledgements?: true;
  revisions: ResolvedRevisions;
}

export type AnalysisProgress =
  /** Which commits are compared, before rendering starts. */
  | { stage: 'revisions'; revisions: ResolvedRevisions }
  | ({ stage: 'render'; cluster: string; side: 'base' | 'head' } & RenderProgress);

export interface AnalysisDeps {
  runner: ToolRunner;
  /** The machine's render limits and chart cache (from config), which a request never sets. */
  machine: RenderMachine;
  /** Aborting it stops every tool process of the analysis and rejects with CancelledError. */
  signal?: AbortSignal;
  logger?: LogSink;
  /** Milliseconds, for `timings`; a monotonic clock by default. */
  now?: () => number;
  onProgress?: (progress: AnalysisProgress) => void;
  /** The RenderEngine seam; render's createEngine unless a test stands in for it. */
  createEngine?: (name: EngineName, deps: EngineDeps) => RenderEngine;
}
