/**
 * Which comments ask for a render: `/fluxlens render` on a line of its own, in prose, on a
 * created comment, from a person with write access or an allowed bot, never from fluxlens.
 */
import { describe, expect, it } from 'vitest';
import { type EventSettings, jobForEvent } from '../../../src/server/index.js';
import { type Payload, example, set } from './support/github-examples.js';

const settings: EventSettings = {
  renderDrafts: false,
  renderForks: false,
  allowlist: undefined,
  checkRunName: 'fluxlens',
  appId: undefined,
  deliveryId: 'delivery-1',
  requestedAt: '2024-05-01T12:00:00.000Z',
  commandBots: new Set(['renovate[bot]']),
  ownLogin: 'fluxlens-app[bot]',
};

interface Comment {
  body: string;
  action?: string;
  login?: string;
  type?: string;
}

function comment({ body, action = 'created', login = 'Codertocat', type = 'User' }: Comment) {
  const payload: Payload = example('issue_comment', action === 'created' ? 'created' : action);
  set(payload, 'action', action);
  set(payload, 'comment.body', body);
  set(payload, 'comment.author_association', 'MEMBER');
  set(payload, 'comment.user.login', login);
  set(payload, 'comment.user.type', type);
  set(payload, 'issue.pull_request', { url: 'https://api.github.com/repos/x/y/pulls/1' });
  return payload;
}

const decide = (c: Comment) => jobForEvent('issue_comment', comment(c), settings);

describe('/fluxlens render in a comment', () => {
  it.each<[string, Comment]>([
    ['inside a ``` fence', { body: 'see:\n```\n/fluxlens render\n```' }],
    ['inside a ~~~ fence', { body: '~~~sh\n/fluxlens render\n~~~' }],
    ['inside a longer fence a shorter one does not close', { body: '````\n```\n/fluxlens render' }],
    ['inside a fence never closed', { body: '```\n/fluxlens render' }],
    [
      'after a fence line with a language, which does not close',
      { body: '```\n```sh\n/fluxlens render' },
    ],
    ['after a tilde line inside a backtick fence', { body: '```\n~~~\n/fluxlens render' }],
    ['in an indented code block', { body: 'example:\n\n    /fluxlens render' }],
    ['indented by a tab', { body: '\t/fluxlens render' }],
    ['in a block quote', { body: '> /fluxlens render' }],
    ['in a nested block quote', { body: '> > /fluxlens render' }],
    ['on a line that continues a quote', { body: '> you wrote\n/fluxlens render' }],
    ['in an HTML comment', { body: '<!-- /fluxlens render -->' }],
    ['in an HTML comment over lines', { body: '<!--\n/fluxlens render\n-->' }],
    ['after an HTML comment never closed', { body: '<!-- hidden\n/fluxlens render' }],
    ['inside a sentence', { body: 'please /fluxlens render this' }],
    ['in inline code', { body: '`/fluxlens render`' }],
    ['in a list item', { body: '- /fluxlens render' }],
    ['on an edited comment', { body: '/fluxlens render', action: 'edited' }],
    ['on a deleted comment', { body: '/fluxlens render', action: 'deleted' }],
    ['from a bot', { body: '/fluxlens render', login: 'other-app[bot]', type: 'Bot' }],
    ['from a bot-named login', { body: '/fluxlens render', login: 'helper[bot]' }],
    ['from a Bot-typed account', { body: '/fluxlens render', login: 'ci-robot', type: 'Bot' }],
    ['from fluxlens itself', { body: '/fluxlens render', login: 'fluxlens-app[bot]', type: 'Bot' }],
    [
      'from fluxlens itself in another case',
      { body: '/fluxlens render', login: 'FluxLens-App[bot]' },
    ],
  ])('stays quiet %s', (_name, c) => {
    expect(decide(c)).toMatchObject({ action: 'ignore' });
  });

  it.each<[string, Comment]>([
    ['alone in a comment', { body: '/fluxlens render' }],
    ['on its own line after prose', { body: 'Looks odd.\n/fluxlens render\nthanks' }],
    ['after a closed fence', { body: '```\ncode\n```\n/fluxlens render' }],
    ['after a quote and a blank line', { body: '> you wrote\n\n/fluxlens render' }],
    ['after a closed HTML comment', { body: '<!-- note -->\n/fluxlens render' }],
    ['indented by three spaces, with Windows line ends', { body: 'hi\r\n   /fluxlens render\r\n' }],
    [
      'from a bot the settings allow',
      { body: '/fluxlens render', login: 'renovate[bot]', type: 'Bot' },
    ],
  ])('asks for a render %s', (_name, c) => {
    expect(decide(c)).toMatchObject({
      action: 'enqueue',
      jobs: [{ reason: 'comment-command', explicit: true }],
    });
  });

  it('ignores our own comment even when our login is in the allowed bots', () => {
    const decision = jobForEvent(
      'issue_comment',
      comment({ body: '/fluxlens render', login: 'fluxlens-app[bot]', type: 'Bot' }),
      { ...settings, commandBots: new Set(['fluxlens-app[bot]']) },
    );
    expect(decision).toEqual({ action: 'ignore', reason: 'command in our own comment' });
  });
});
