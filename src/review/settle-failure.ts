/**
 * The one place a failed review is decided: retried (the check run stays in progress),
 * given up and reported on the PR, or dropped because it was cancelled. Errors are told
 * apart by classify(), never by their text.
 */
import { classify, errorMessage } from '../errors.js';
import { PermanentJobError } from '../queue/index.js';
import { publishConclusion } from './publish.js';
import type { Failed } from './types.js';

const MAX_REASON_CHARS = 2000;

const TITLES = {
  usage: 'Could not analyse this pull request',
  setup: 'fluxlens is not set up to review this repository',
  transient: 'Could not analyse this pull request: a service it needs did not answer',
  internal: 'Could not analyse this pull request: fluxlens failed',
} as const;

/** Rethrows what the queue must act on: the same error to retry, PermanentJobError to stop. */
export async function settleFailure(err: unknown, failed: Failed): Promise<never> {
  const { target, ctx, deps, log } = failed;
  const kind = classify(err);
  if (kind === 'cancelled' || ctx.signal.aborted) throw err;
  const retry =
    (kind === 'transient' || kind === 'internal') && ctx.attempt < deps.settings.attempts;
  if (retry) {
    log.warn({ err, kind }, 'review failed; it will be retried');
    throw err;
  }
  log.error({ err, kind }, 'review failed; giving up');
  // Reporting is best effort: GitHub itself may be what failed.
  if (target !== undefined && (await ctx.isCurrent())) {
    await publishConclusion(target, 'failure', {
      title: TITLES[kind],
      summary: `fluxlens could not finish the review of ${target.headSha.slice(0, 12)}:\n\n${clip(errorMessage(err))}\n`,
    }).catch((publishErr: unknown) =>
      log.warn({ err: publishErr }, 'could not report the failure on GitHub'),
    );
  }
  throw new PermanentJobError(errorMessage(err), { cause: err });
}

function clip(text: string): string {
  const oneBlock = text.length > MAX_REASON_CHARS ? `${text.slice(0, MAX_REASON_CHARS)}…` : text;
  return oneBlock
    .split('\n')
    .map((line) => `    ${line}`)
    .join('\n');
}
