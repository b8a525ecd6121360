/** A PR the service will not render (a draft, a fork): its check says so, and why. */
import type { PullRef } from '../queue/index.js';
import { publishConclusion } from './publish.js';
import type { ReviewGitHub, ReviewSettings } from './types.js';

const WHY = {
  draft: {
    title: 'Not rendered: draft pull request',
    summary: 'fluxlens reviews a draft when it is marked ready for review.',
  },
  fork: {
    title: 'Not rendered: pull requests from forks are off',
    summary:
      'fluxlens does not render pull requests from forks unless FLUXLENS_RENDER_FORKS is on.',
  },
} as const;

export async function reportSkipped(
  github: ReviewGitHub,
  settings: Pick<ReviewSettings, 'mode' | 'comment'>,
  skipped: {
    pull: PullRef;
    headSha: string;
    reason: keyof typeof WHY;
    installationId?: number | undefined;
  },
): Promise<void> {
  const writer = github.forInstallation(skipped.installationId);
  await publishConclusion(
    { writer, pull: skipped.pull, headSha: skipped.headSha, settings },
    skipped.reason === 'draft' ? 'skipped' : 'neutral',
    WHY[skipped.reason],
  );
}

/** Acknowledges a `/fluxlens render` comment: the review it asked for is queued. */
export async function acknowledgeCommand(
  github: ReviewGitHub,
  command: { pull: PullRef; commentId: number; installationId?: number | undefined },
): Promise<void> {
  await github.forInstallation(command.installationId).addReaction({
    owner: command.pull.owner,
    repo: command.pull.repo,
    commentId: command.commentId,
    content: 'eyes',
  });
}
