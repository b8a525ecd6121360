/**
 * Writing a review back: the check run (a GitHub App) or commit status (a token, and every
 * other forge), and the sticky comment. Every write is an upsert, so a retried job lands once.
 */
import {
  ACKNOWLEDGE_ACTION_ID,
  type AnalysisResult,
  type CheckRunConclusion,
  type CheckRunOutput,
  type FailOn,
} from '../model/index.js';
import { MARKDOWN_MAX_CHARS, renderCheckRun, renderMarkdown } from '../report/index.js';
import type { CheckRunAction } from '../forges/index.js';
import type { Target } from './types.js';

/**
 * The name of our check run. The server is given it too: a re-request of a check run of
 * any other name is not ours.
 */
export const CHECK_RUN_NAME = 'fluxlens';
/** Hidden in the comment body; with our own authorship it finds the sticky comment. */
export const COMMENT_MARKER = '<!-- fluxlens:review -->';
const STATUS_CONTEXT = 'fluxlens';

/**
 * The button a failing check run offers (GitHub: label at most 20 characters, description
 * 40, identifier 20).
 */
export const ACKNOWLEDGE_ACTION = {
  label: 'Acknowledge findings',
  description: 'Accept them: the check turns neutral',
  identifier: ACKNOWLEDGE_ACTION_ID,
} as const;

/**
 * The sticky comment's body, the service's and the Action's alike: the marker first, then
 * the report within GitHub's comment limit (the report leaves room for the marker).
 */
export function stickyCommentBody(result: AnalysisResult): string {
  const body = renderMarkdown(result, { maxChars: MARKDOWN_MAX_CHARS - COMMENT_MARKER.length - 1 });
  return `${COMMENT_MARKER}\n${body}`;
}

/**
 * The check run in progress. A retry (`retry`) leaves a run its earlier attempt completed as
 * it is: reopening it would leave the head with two runs when the result is the same.
 */
export async function publishStarted(target: Target, retry = false): Promise<void> {
  const { writer, pull, headSha, settings } = target;
  const repo = { owner: pull.owner, repo: pull.repo };
  if (settings.mode === 'app' && writer.ensureCheckRun !== undefined) {
    await writer.ensureCheckRun({
      ...repo,
      headSha,
      name: CHECK_RUN_NAME,
      status: 'in_progress',
      ...(retry ? { keepCompleted: true } : {}),
    });
  } else {
    await writer.ensureStatus({
      ...repo,
      sha: headSha,
      state: 'pending',
      description: 'Rendering the base and the head',
      context: STATUS_CONTEXT,
    });
  }
}

/** The analysis on the PR: check run or status from the gate, then the comment. */
export async function publishResult(
  target: Target,
  result: AnalysisResult,
  failOn: FailOn,
): Promise<void> {
  const run = renderCheckRun(result, failOn);
  await publishConclusion(target, run.conclusion, {
    title: run.title,
    summary: run.summary,
    text: run.text,
    annotations: run.annotations,
    ...(run.conclusion === 'failure' ? { actions: [ACKNOWLEDGE_ACTION] } : {}),
    ...(result.reportUrl !== undefined ? { detailsUrl: result.reportUrl } : {}),
  });
  const { writer, pull, settings } = target;
  const comment = {
    owner: pull.owner,
    repo: pull.repo,
    issueNumber: pull.pullNumber,
    marker: COMMENT_MARKER,
  };
  if (settings.comment === 'never') return;
  const worthSaying = result.changes.length > 0 || result.errors.length > 0;
  // In 'changes' mode a comment already written is still kept current when changes go away.
  if (settings.comment === 'changes' && !worthSaying) {
    if ((await writer.findComment(comment)) === undefined) return;
  }
  await writer.ensureComment({ ...comment, body: stickyCommentBody(result) });
}

/** A review that ended without an analysis: the check says so, and why. */
export async function publishConclusion(
  target: Target,
  conclusion: CheckRunConclusion,
  output: CheckRunOutput & { detailsUrl?: string; actions?: readonly CheckRunAction[] },
): Promise<void> {
  const { writer, pull, headSha, settings } = target;
  const repo = { owner: pull.owner, repo: pull.repo };
  const { detailsUrl, actions, ...checkOutput } = output;
  if (settings.mode === 'app' && writer.ensureCheckRun !== undefined) {
    await writer.ensureCheckRun({
      ...repo,
      headSha,
      name: CHECK_RUN_NAME,
      status: 'completed',
      conclusion,
      output: checkOutput,
      ...(detailsUrl !== undefined ? { detailsUrl } : {}),
      ...(actions !== undefined ? { actions } : {}),
    });
    return;
  }
  await writer.ensureStatus({
    ...repo,
    sha: headSha,
    state: conclusion === 'failure' ? 'failure' : 'success',
    description: output.title,
    context: STATUS_CONTEXT,
    ...(detailsUrl !== undefined ? { targetUrl: detailsUrl } : {}),
  });
}
