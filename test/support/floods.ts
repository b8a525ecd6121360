/**
 * Floods against a service world, shared by the hostile-requests suite and bench/flood.ts:
 * `/fluxlens render` comments from an owner of the repository and re-render API calls,
 * sent at a steady pace, with what the service made of them read back from GitHub's side
 * (the emulator's recorded requests) and from the server's log.
 */
import { example, set } from '../unit/server/support/github-examples.js';
import { counter, logLines, metricsOf } from './fault-checks.js';
import {
  INSTALLATION,
  OWNER,
  PULL,
  REPO,
  pullRequestPayload,
  sleep,
  type ServiceProcess,
  type ServiceWorld,
} from './service.js';

/** A `/fluxlens render` comment by the repository's owner on `pull`. */
export function renderCommand(world: ServiceWorld, pull = PULL) {
  const comment = example('issue_comment', 'created');
  set(comment, 'issue.number', pull);
  set(comment, 'issue.pull_request', { url: `${world.emulator.apiUrl}/repos/x/y/pulls/${pull}` });
  set(comment, 'comment.body', '/fluxlens render');
  set(comment, 'comment.author_association', 'OWNER');
  set(comment, 'repository', pullRequestPayload('opened', '0'.repeat(40))['repository']);
  set(comment, 'installation', { id: INSTALLATION });
  return comment;
}

/**
 * Sends `count` requests `spacingMs` apart without waiting for answers; resolves with the
 * statuses (0: no answer), each answer also handed to `seen`.
 */
export async function paced(
  count: number,
  spacingMs: number,
  send: (index: number) => Promise<Response>,
  seen: (res: Response) => void = () => undefined,
): Promise<number[]> {
  const answers: Array<Promise<number>> = [];
  for (let i = 0; i < count; i += 1) {
    const answer = send(i).then((res) => {
      seen(res);
      return res.status;
    });
    answers.push(answer.catch(() => 0));
    if (spacingMs > 0) await sleep(spacingMs);
  }
  return Promise.all(answers);
}

export function floodCommands(world: ServiceWorld, count: number, spacingMs: number, pull = PULL) {
  const comment = renderCommand(world, pull);
  return paced(count, spacingMs, () => world.deliver('issue_comment', comment));
}

export function floodApi(
  world: ServiceWorld,
  count: number,
  spacingMs: number,
  pull = PULL,
  seen?: (res: Response) => void,
) {
  const body = JSON.stringify({ owner: OWNER, repo: REPO, pull_number: pull });
  return paced(
    count,
    spacingMs,
    () =>
      fetch(`${world.serverUrl}/api/v1/renders`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${world.secrets.apiToken}`,
        },
        body,
      }),
    seen,
  );
}

/** Reactions fluxlens posted to comments: one per command it acknowledged. */
export function reactionsPosted(world: ServiceWorld, since = 0): number {
  return world.emulator
    .requests()
    .slice(since)
    .filter((r) => r.method === 'POST' && r.path.endsWith('/reactions')).length;
}

/**
 * How the server's queue answered review requests, by status (queued, coalesced, ...);
 * only those of one `reason` (comment-command, api, opened...) when given.
 */
export function enqueueOutcomes(server: ServiceProcess, reason?: string): Record<string, number> {
  const lines = [
    ...logLines(server, 'review job enqueued'),
    ...logLines(server, 'render requested through the API'),
  ].filter((line) => reason === undefined || line['reason'] === reason);
  const counts: Record<string, number> = {};
  for (const line of lines) {
    const status = typeof line['status'] === 'string' ? line['status'] : 'unknown';
    counts[status] = (counts[status] ?? 0) + 1;
  }
  return counts;
}

/** Resolves when the queue holds nothing (waiting, running or held back), with the ms it took. */
export async function drained(world: ServiceWorld, timeoutMs: number): Promise<number | undefined> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    const text = await metricsOf(world.serverUrl);
    const states = ['waiting', 'active', 'delayed'].map((state) =>
      counter(text, `fluxlens_queue_depth{state="${state}"}`),
    );
    if (states.every((n) => n === 0)) return Date.now() - started;
    await sleep(250);
  }
  return undefined;
}

/** Pull numbers of the jobs a process started, in the order it started them. */
export function startedPulls(process: ServiceProcess): number[] {
  return logLines(process, 'job started').flatMap((line) =>
    typeof line['pullNumber'] === 'number' ? [line['pullNumber']] : [],
  );
}
