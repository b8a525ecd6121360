import { describe, expect, it } from 'vitest';
import { type EventSettings, jobForEvent } from '../../../src/server/index.js';
import { type Payload, example, get, set } from './support/github-examples.js';

const HEAD = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';
const PULL = { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 2 };

const settings: EventSettings = {
  renderDrafts: false,
  renderForks: false,
  allowlist: undefined,
  checkRunName: 'fluxlens',
  appId: undefined,
  deliveryId: 'delivery-1',
  requestedAt: '2024-05-01T12:00:00.000Z',
  commandBots: new Set(),
  ownLogin: undefined,
};

function pr(action: string, ...edits: [string, unknown][]): Payload {
  const payload = example('pull_request', action === 'edited' ? 'opened' : action);
  set(payload, 'action', action);
  for (const [path, value] of edits) set(payload, path, value);
  return payload;
}

/** A check_run re-request of our check, for the PR the check_suite example lists. */
function checkRun(...edits: [string, unknown][]): Payload {
  const payload = example('check_run', 'rerequested');
  set(payload, 'check_run.name', 'fluxlens');
  const suite = example('check_suite', 'rerequested');
  set(payload, 'repository', get(suite, 'repository'));
  set(payload, 'check_run.pull_requests', get(suite, 'check_suite.pull_requests'));
  for (const [path, value] of edits) set(payload, path, value);
  return payload;
}

/** A press of our failing check run's "Acknowledge findings" (GitHub's requested_action example). */
function pressed(...edits: [string, unknown][]): Payload {
  const payload = example('check_run', 'requested_action');
  set(payload, 'check_run.name', 'fluxlens');
  set(payload, 'requested_action', { identifier: 'acknowledge' });
  const suite = example('check_suite', 'rerequested');
  set(payload, 'repository', get(suite, 'repository'));
  set(payload, 'check_run.pull_requests', get(suite, 'check_suite.pull_requests'));
  for (const [path, value] of edits) set(payload, path, value);
  return payload;
}

function checkSuitePulls(): unknown {
  return get(example('check_suite', 'rerequested'), 'check_suite.pull_requests');
}

function comment(body: string, association: string, onPull = true): Payload {
  const payload = example('issue_comment', 'created');
  set(payload, 'comment.body', body);
  set(payload, 'comment.author_association', association);
  if (onPull)
    set(payload, 'issue.pull_request', { url: 'https://api.github.com/repos/x/y/pulls/1' });
  return payload;
}

interface Row {
  name: string;
  event: string;
  payload: () => Payload;
  settings?: Partial<EventSettings>;
  expected: Record<string, unknown>;
}

const enqueue = (job: Record<string, unknown>) => ({
  action: 'enqueue',
  jobs: [expect.objectContaining(job)],
});

const rows: Row[] = [
  {
    name: 'reviews an opened pull request at its head',
    event: 'pull_request',
    payload: () => pr('opened'),
    expected: enqueue({
      pull: PULL,
      headSha: HEAD,
      baseRef: 'master',
      reason: 'opened',
      explicit: false,
    }),
  },
  {
    name: 'reviews a push to a pull request, carrying the installation',
    event: 'pull_request',
    payload: () => pr('synchronize'),
    expected: enqueue({ reason: 'synchronize', installationId: 1, deliveryId: 'delivery-1' }),
  },
  {
    name: 'reviews a reopened pull request',
    event: 'pull_request',
    payload: () => pr('reopened'),
    expected: enqueue({ reason: 'reopened' }),
  },
  {
    name: 'reviews a pull request marked ready for review',
    event: 'pull_request',
    payload: () => pr('ready_for_review'),
    expected: enqueue({ reason: 'ready_for_review' }),
  },
  {
    name: 'cancels the review of a closed pull request',
    event: 'pull_request',
    payload: () => pr('closed'),
    expected: { action: 'cancel', pull: PULL },
  },
  {
    name: 'stays quiet when only the title or body was edited',
    event: 'pull_request',
    payload: () => pr('edited', ['changes', { title: { from: 'old' } }]),
    expected: { action: 'ignore' },
  },
  {
    name: 're-reviews explicitly when the base branch changed',
    event: 'pull_request',
    payload: () =>
      pr('edited', ['changes', { base: { ref: { from: 'develop' }, sha: { from: HEAD } } }]),
    expected: enqueue({ reason: 'base-changed', explicit: true, baseRef: 'master' }),
  },
  {
    name: 'stays quiet on labels',
    event: 'pull_request',
    payload: () => pr('labeled'),
    expected: { action: 'ignore' },
  },
  {
    name: 'skips a draft pull request with the reason',
    event: 'pull_request',
    payload: () => pr('opened', ['pull_request.draft', true]),
    expected: { action: 'skip', reason: 'draft', pull: PULL, headSha: HEAD },
  },
  {
    name: 'reviews a draft pull request when drafts are rendered',
    event: 'pull_request',
    payload: () => pr('opened', ['pull_request.draft', true]),
    settings: { renderDrafts: true },
    expected: enqueue({ reason: 'opened' }),
  },
  {
    name: 'skips a pull request from a fork with the reason',
    event: 'pull_request',
    payload: () => pr('opened', ['pull_request.head.repo.id', 999]),
    expected: { action: 'skip', reason: 'fork', headSha: HEAD },
  },
  {
    name: 'skips a pull request whose fork was deleted',
    event: 'pull_request',
    payload: () => pr('synchronize', ['pull_request.head.repo', null]),
    settings: { renderForks: false },
    expected: { action: 'skip', reason: 'fork', installationId: 1 },
  },
  {
    name: 'reviews a fork when forks are rendered',
    event: 'pull_request',
    payload: () => pr('opened', ['pull_request.head.repo.id', 999]),
    settings: { renderForks: true },
    expected: enqueue({ reason: 'opened' }),
  },
  {
    name: 'ignores a repository outside the allowlist',
    event: 'pull_request',
    payload: () => pr('opened'),
    settings: { allowlist: new Set(['other/repo']) },
    expected: { action: 'ignore', reason: 'repository not in allowlist' },
  },
  {
    name: 'matches the allowlist without regard to case',
    event: 'pull_request',
    payload: () => pr('opened'),
    settings: { allowlist: new Set(['codertocat/hello-world']) },
    expected: enqueue({ reason: 'opened' }),
  },
  {
    name: 'refuses a pull_request payload without a head commit',
    event: 'pull_request',
    payload: () => pr('opened', ['pull_request.head.sha', undefined]),
    expected: { action: 'invalid' },
  },
  {
    name: 're-renders every pull request of a re-requested fluxlens check run',
    event: 'check_run',
    payload: () => checkRun(),
    expected: enqueue({
      pull: PULL,
      headSha: HEAD,
      baseRef: 'master',
      reason: 'check-rerequested',
      explicit: true,
    }),
  },
  {
    name: 'ignores a re-requested check run of another name',
    event: 'check_run',
    payload: () => checkRun(['check_run.name', 'ci']),
    expected: { action: 'ignore' },
  },
  {
    name: 'ignores a re-requested check run of another app',
    event: 'check_run',
    payload: () => checkRun(),
    settings: { appId: 12345 },
    expected: { action: 'ignore', reason: 'check run of another app' },
  },
  {
    name: 'accepts a re-requested check run of our app',
    event: 'check_run',
    payload: () => checkRun(['check_run.app.id', 12345]),
    settings: { appId: 12345 },
    expected: enqueue({ reason: 'check-rerequested' }),
  },
  {
    name: 'ignores a created check run',
    event: 'check_run',
    payload: () => checkRun(['action', 'created']),
    expected: { action: 'ignore' },
  },
  {
    name: 'reviews the head again with the acknowledgement of the one who pressed the button',
    event: 'check_run',
    payload: () => pressed(),
    expected: enqueue({
      pull: PULL,
      headSha: HEAD,
      baseRef: 'master',
      reason: 'acknowledge',
      acknowledge: { login: 'codebytere', at: '2024-05-01T12:00:00.000Z' },
      explicit: true,
    }),
  },
  {
    name: 'ignores a requested action of another identifier',
    event: 'check_run',
    payload: () => pressed(['requested_action', { identifier: 'lgtm|26764' }]),
    expected: { action: 'ignore', reason: 'requested action of another identifier' },
  },
  {
    name: 'ignores a requested action on a check run of another name',
    event: 'check_run',
    payload: () => pressed(['check_run.name', 'ci']),
    expected: { action: 'ignore', reason: 'check run of another name' },
  },
  {
    name: 'ignores an acknowledgement pressed by a bot',
    event: 'check_run',
    payload: () => pressed(['sender.login', 'helper[bot]'], ['sender.type', 'Bot']),
    expected: { action: 'ignore', reason: 'acknowledgement from a bot' },
  },
  {
    name: 'ignores a re-requested check run that lists no pull request',
    event: 'check_run',
    payload: () => checkRun(['check_run.pull_requests', []]),
    expected: { action: 'ignore', reason: 'no pull request to render' },
  },
  {
    name: 're-renders the pull requests of a re-requested check suite',
    event: 'check_suite',
    payload: () => example('check_suite', 'rerequested'),
    expected: enqueue({
      pull: PULL,
      headSha: HEAD,
      reason: 'check-rerequested',
      explicit: true,
      installationId: 957387,
    }),
  },
  {
    name: 'ignores a requested check suite',
    event: 'check_suite',
    payload: () => example('check_suite', 'requested'),
    expected: { action: 'ignore' },
  },
  {
    name: 'renders on a member’s /fluxlens render comment, head resolved at run time',
    event: 'issue_comment',
    payload: () => comment('Looks odd.\n/fluxlens render\nthanks', 'MEMBER'),
    expected: {
      action: 'enqueue',
      jobs: [
        {
          pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 1 },
          reason: 'comment-command',
          explicit: true,
          deliveryId: 'delivery-1',
          requestedAt: '2024-05-01T12:00:00.000Z',
        },
      ],
      react: {
        pull: { owner: 'Codertocat', repo: 'Hello-World', pullNumber: 1 },
        commentId: 492700400,
      },
    },
  },
  {
    name: 'renders on an owner’s command',
    event: 'issue_comment',
    payload: () => comment('/fluxlens render', 'OWNER'),
    expected: enqueue({ reason: 'comment-command' }),
  },
  {
    name: 'renders on a collaborator’s command',
    event: 'issue_comment',
    payload: () => comment('  /fluxlens render  ', 'COLLABORATOR'),
    expected: enqueue({ reason: 'comment-command' }),
  },
  {
    name: 'ignores the command from someone without write access',
    event: 'issue_comment',
    payload: () => comment('/fluxlens render', 'NONE'),
    expected: { action: 'ignore', reason: 'command from an author without write access' },
  },
  {
    name: 'ignores the command from a past contributor',
    event: 'issue_comment',
    payload: () => comment('/fluxlens render', 'CONTRIBUTOR'),
    expected: { action: 'ignore' },
  },
  {
    name: 'ignores the command quoted inside a sentence',
    event: 'issue_comment',
    payload: () => comment('try `/fluxlens render` later', 'MEMBER'),
    expected: { action: 'ignore' },
  },
  {
    name: 'ignores the command on an issue',
    event: 'issue_comment',
    payload: () => comment('/fluxlens render', 'MEMBER', false),
    expected: { action: 'ignore', reason: 'comment on an issue' },
  },
  {
    name: 'ignores an ordinary comment',
    event: 'issue_comment',
    payload: () => example('issue_comment', 'created'),
    expected: { action: 'ignore' },
  },
  {
    name: 'acknowledges a new installation',
    event: 'installation',
    payload: () => example('installation', 'created'),
    expected: { action: 'acknowledge', change: 'installation created' },
  },
  {
    name: 'acknowledges repositories added to an installation',
    event: 'installation_repositories',
    payload: () => example('installation_repositories', 'added'),
    expected: {
      action: 'acknowledge',
      installationId: 957387,
      change: 'installation_repositories added',
    },
  },
  {
    name: 'ignores events it does not handle',
    event: 'star',
    payload: () => ({ action: 'created' }),
    expected: { action: 'ignore', reason: 'unhandled event star' },
  },
];

describe('jobForEvent', () => {
  it.each(rows)('$name', ({ event, payload, settings: overrides, expected }) => {
    expect(jobForEvent(event, payload(), { ...settings, ...overrides })).toMatchObject(expected);
  });

  it('leaves the head and base of a comment command to the worker', () => {
    const decision = jobForEvent('issue_comment', comment('/fluxlens render', 'MEMBER'), settings);
    expect(decision.action === 'enqueue' && decision.jobs[0]).not.toHaveProperty('headSha');
    expect(decision.action === 'enqueue' && decision.jobs[0]).not.toHaveProperty('baseRef');
  });

  it('keeps only the pull requests whose head lives in the repository', () => {
    const pulls = checkSuitePulls() as Payload[];
    const fork = structuredClone(pulls[0]) as Payload;
    set(fork, 'number', 3);
    set(fork, 'head.repo.id', 999);
    const decision = jobForEvent(
      'check_run',
      checkRun(['check_run.pull_requests', [...pulls, fork]]),
      settings,
    );
    expect(decision).toMatchObject({ action: 'enqueue', jobs: [{ pull: PULL }] });
    expect(decision.action === 'enqueue' && decision.jobs).toHaveLength(1);
  });
});
