/**
 * POST /webhooks/gitea as Gitea and Forgejo deliver to it. Forgejo sends its own headers
 * (X-Forgejo-Event, X-Forgejo-Delivery, X-Forgejo-Signature) beside Gitea's, as its webhook
 * documentation shows; Gitea sends only its own. Both sign the raw body with HMAC-SHA256 in
 * bare hex. Payloads carry the fields of Gitea's PullRequestPayload and IssueCommentPayload
 * (modules/structs/hook.go), which Forgejo shares.
 */
import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import { forgeVersion } from '../../../src/forges/index.js';
import type { GiteaServerDeps } from '../../../src/server/index.js';
import { WEBHOOK_SECRET, metricValue, testServer } from './support/test-server.js';

const GITEA_SECRET = 'gitea-secret-for-tests-0b7e';
const HEAD = 'a'.repeat(40);
const BASE = 'b'.repeat(40);

const repository = {
  id: 7,
  owner: { id: 1, login: 'home-ops', username: 'home-ops' },
  name: 'cluster',
  full_name: 'home-ops/cluster',
  private: false,
  fork: false,
  default_branch: 'main',
};

function pullRequest(action: string, extra: Record<string, unknown> = {}) {
  return {
    action,
    number: 4,
    pull_request: {
      id: 41,
      number: 4,
      user: { id: 2, login: 'alex' },
      title: 'podinfo: publish on the internet',
      state: 'open',
      draft: false,
      head: {
        label: 'podinfo-public',
        ref: 'podinfo-public',
        sha: HEAD,
        repo_id: 7,
        repo: repository,
      },
      base: { label: 'main', ref: 'main', sha: BASE, repo_id: 7, repo: repository },
      ...extra,
    },
    repository,
    sender: { id: 2, login: 'alex' },
    commit_id: '',
  };
}

function comment(body: string, login = 'alex', isPull = true) {
  return {
    action: 'created',
    issue: {
      id: 41,
      number: 4,
      title: 'podinfo: publish on the internet',
      pull_request: isPull ? { merged: false, merged_at: null } : null,
      state: 'open',
    },
    comment: { id: 99, body, user: { id: 2, login } },
    repository,
    sender: { id: 2, login },
    is_pull: isPull,
  };
}

type Flavor = 'gitea' | 'forgejo';

let deliveries = 0;

function deliver(
  app: FastifyInstance,
  flavor: Flavor,
  event: string,
  payload: unknown,
  options: { secret?: string; signature?: string; giteaSignature?: string } = {},
) {
  const body = JSON.stringify(payload);
  const signature =
    options.signature ??
    createHmac('sha256', options.secret ?? GITEA_SECRET)
      .update(body)
      .digest('hex');
  const id = `6a1e5c1e-${String(++deliveries).padStart(4, '0')}-4000-8000-${process.pid}`;
  const gitea = {
    'x-gitea-event': event,
    'x-gitea-delivery': id,
    'x-gitea-signature': options.giteaSignature ?? signature,
    'x-github-event': event,
    'x-github-delivery': id,
  };
  const forgejo = {
    'x-forgejo-event': event,
    'x-forgejo-delivery': id,
    'x-forgejo-signature': signature,
  };
  return app.inject({
    method: 'POST',
    url: '/webhooks/gitea',
    headers: {
      'content-type': 'application/json',
      ...gitea,
      ...(flavor === 'forgejo' ? forgejo : {}),
    },
    payload: body,
  });
}

function giteaServer(allowed: (login: string) => boolean = () => true) {
  const asked: string[] = [];
  const gitea: GiteaServerDeps = {
    webhookSecret: GITEA_SECRET,
    mayCommand: async (_repo, login) => {
      asked.push(login);
      return allowed(login);
    },
    ownLogin: () => 'fluxlens',
  };
  return { ...testServer({ gitea, rateLimits: { commandsPerInstallation: 30 } }), asked };
}

describe.each<Flavor>(['gitea', 'forgejo'])('a %s delivery to /webhooks/gitea', (flavor) => {
  it.each([
    ['opened', 'opened'],
    ['synchronized', 'synchronize'],
    ['reopened', 'reopened'],
  ])('queues a review of the head when a pull request is %s', async (action, reason) => {
    const { app, queue } = giteaServer();
    const response = await deliver(app, flavor, 'pull_request', pullRequest(action));
    expect(response.statusCode).toBe(202);
    expect(queue.enqueued).toEqual([
      expect.objectContaining({
        pull: { forge: 'gitea', owner: 'home-ops', repo: 'cluster', pullNumber: 4 },
        headSha: HEAD,
        baseRef: 'main',
        reason,
        explicit: false,
        deliveryId: expect.stringMatching(/^gitea-6a1e5c1e-/),
      }),
    ]);
    const sample = `fluxlens_webhook_deliveries_total{event="pull_request",outcome="enqueued",forge="gitea"}`;
    expect(await metricValue(app, sample)).toBe(1);
  });

  it('cancels the review when the pull request is closed', async () => {
    const { app, queue } = giteaServer();
    const response = await deliver(app, flavor, 'pull_request', pullRequest('closed'));
    expect(response.statusCode).toBe(202);
    expect(queue.cancelled).toEqual([
      { forge: 'gitea', owner: 'home-ops', repo: 'cluster', pullNumber: 4 },
    ]);
  });

  it.each([
    ['a label change', pullRequest('label_updated')],
    ['a draft', pullRequest('opened', { draft: true })],
    [
      'a pull request from a fork',
      pullRequest('opened', {
        head: { label: 'x', ref: 'x', sha: HEAD, repo_id: 8 },
      }),
    ],
  ])('queues nothing for %s', async (_case, payload) => {
    const { app, queue } = giteaServer();
    const response = await deliver(app, flavor, 'pull_request', payload);
    expect(response.statusCode).toBe(202);
    expect(queue.enqueued).toEqual([]);
  });

  it('says why a draft is not rendered, on the forge it came from', async () => {
    const { app, skipped } = giteaServer();
    await deliver(app, flavor, 'pull_request', pullRequest('opened', { draft: true }));
    await app.close();
    expect(skipped).toEqual([
      expect.objectContaining({
        pull: { forge: 'gitea', owner: 'home-ops', repo: 'cluster', pullNumber: 4 },
        headSha: HEAD,
        reason: 'draft',
      }),
    ]);
  });

  it('reviews a redelivery once', async () => {
    const { app, queue } = giteaServer();
    const payload = pullRequest('opened');
    const body = JSON.stringify(payload);
    const signature = createHmac('sha256', GITEA_SECRET).update(body).digest('hex');
    const headers = {
      'content-type': 'application/json',
      'x-gitea-event': 'pull_request',
      'x-gitea-delivery': 'f6266f16-1bf3-46a5-9ea4-602e06ead473',
      'x-gitea-signature': signature,
    };
    const first = await app.inject({
      method: 'POST',
      url: '/webhooks/gitea',
      headers,
      payload: body,
    });
    const again = await app.inject({
      method: 'POST',
      url: '/webhooks/gitea',
      headers,
      payload: body,
    });
    expect([first.statusCode, again.statusCode]).toEqual([202, 200]);
    expect(queue.enqueued).toHaveLength(1);
  });

  it('refuses a body signed with another secret (GitHub’s included) and queues nothing', async () => {
    const { app, queue } = giteaServer();
    const response = await deliver(app, flavor, 'pull_request', pullRequest('opened'), {
      secret: WEBHOOK_SECRET,
    });
    expect(response.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="bad-signature"}')).toBe(
      1,
    );
  });

  it('refuses a delivery without a signature and queues nothing', async () => {
    const { app, queue } = giteaServer();
    const response = await deliver(app, flavor, 'pull_request', pullRequest('opened'), {
      signature: '',
      giteaSignature: '',
    });
    expect(response.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
  });

  it('queues a render for a command from a user who may push, and acknowledges it', async () => {
    const { app, queue, reactions, asked } = giteaServer((login) => login === 'alex');
    const response = await deliver(app, flavor, 'issue_comment', comment('/fluxlens render'));
    expect(response.statusCode).toBe(202);
    expect(asked).toEqual(['alex']);
    // Commands count against the Gitea owner's limit, apart from a GitHub owner of that name.
    expect(queue.admissions).toEqual(['commands:gitea:home-ops']);
    expect(queue.enqueued).toEqual([
      expect.objectContaining({
        pull: { forge: 'gitea', owner: 'home-ops', repo: 'cluster', pullNumber: 4 },
        reason: 'comment-command',
        explicit: true,
      }),
    ]);
    await app.close();
    expect(reactions).toEqual([
      {
        pull: { forge: 'gitea', owner: 'home-ops', repo: 'cluster', pullNumber: 4 },
        commentId: 99,
      },
    ]);
  });

  it.each([
    ['a user who may not push', comment('/fluxlens render', 'passer-by')],
    ['fluxlens itself', comment('/fluxlens render', 'fluxlens')],
    ['a comment on an issue', comment('/fluxlens render', 'alex', false)],
    ['a comment that only quotes the command', comment('> /fluxlens render')],
  ])('ignores the command in %s', async (_case, payload) => {
    const { app, queue, reactions } = giteaServer((login) => login === 'alex');
    const response = await deliver(app, flavor, 'issue_comment', payload);
    expect(response.statusCode).toBe(202);
    await app.close();
    expect(queue.enqueued).toEqual([]);
    expect(reactions).toEqual([]);
  });
});

describe('Forgejo beside Gitea', () => {
  it('checks X-Forgejo-Signature when Forgejo sends it: a good Gitea one does not rescue a bad one', async () => {
    const { app, queue } = giteaServer();
    const payload = pullRequest('opened');
    const good = createHmac('sha256', GITEA_SECRET).update(JSON.stringify(payload)).digest('hex');
    const response = await deliver(app, 'forgejo', 'pull_request', payload, {
      signature: 'f'.repeat(64),
      giteaSignature: good,
    });
    expect(response.statusCode).toBe(401);
    expect(queue.enqueued).toEqual([]);
  });

  it.each([
    ['1.27.3', 'gitea'],
    ['1.22.0+dev-123-gabcdef', 'gitea'],
    // Forgejo's /api/v1/version names the Gitea it is compatible with after `+gitea-`.
    ['11.0.1+gitea-1.22.0', 'forgejo'],
    ['7.0.0+gitea-1.22.0', 'forgejo'],
  ])('tells the forge from its version %s', (version, flavor) => {
    expect(forgeVersion(version)).toEqual({ flavor, version });
  });

  it('leaves /webhooks/gitea unrouted when no Gitea is configured', async () => {
    const { app } = testServer();
    const response = await deliver(app, 'gitea', 'pull_request', pullRequest('opened'));
    expect(response.statusCode).toBe(404);
  });
});
