/**
 * Each forge's webhook as the route reads it: its path, the headers that name the event,
 * the delivery and the signature, how a signature is written, the secrets it is checked
 * against, and the event rules that decide what a delivery does. GitHub's always; Gitea's
 * (Forgejo's too) when the deps configure it.
 */
import type { ForgeName } from '../model/index.js';
import { giteaJobForEvent } from './gitea-events.js';
import { HttpError } from './http-error.js';
import { jobForEvent } from './job-for-event.js';
import type { ServerContext } from './server-context.js';
import type { EventDecision, EventSettings } from './types.js';
import { EVENT_BODY_LIMITS, signatureDigest } from './webhook-body.js';

export interface WebhookForge {
  name: ForgeName;
  path: string;
  /** Header names, lower-case; the first the request carries counts. */
  headers: {
    event: readonly string[];
    delivery: readonly string[];
    signature: readonly string[];
    /** How refusals name them. */
    names: { event: string; delivery: string };
  };
  /** The digest a signature header names, or undefined when it is not one. */
  digest(header: string | undefined): Buffer | undefined;
  /** The events read, each with the most bytes its body may have. */
  limits: ReadonlyMap<string, number>;
  /** Checked in turn; empty when signatures are not verified (local development only). */
  secrets: readonly string[];
  /** Our own login on the forge once known: never a command author. */
  ownLogin?: () => string | undefined;
  decide(event: string, payload: unknown, settings: EventSettings): Promise<EventDecision>;
}

const KIB = 1024;
const MIB = 1024 * KIB;

/** Gitea's pull request and comment payloads are the size of GitHub's, or smaller. */
const GITEA_BODY_LIMITS: ReadonlyMap<string, number> = new Map([
  ['pull_request', 2 * MIB],
  ['issue_comment', 2 * MIB],
]);

const HEX_SIGNATURE = /^[0-9a-f]{64}$/;

/** X-Gitea-Signature and X-Forgejo-Signature: the HMAC-SHA256 of the body, bare hex. */
export function hexDigest(header: string | undefined): Buffer | undefined {
  return header !== undefined && HEX_SIGNATURE.test(header)
    ? Buffer.from(header, 'hex')
    : undefined;
}

export function webhookForges(ctx: ServerContext): WebhookForge[] {
  const { deps } = ctx;
  const secret = deps.webhookSecret;
  const previous = deps.previousWebhookSecret;
  const github: WebhookForge = {
    name: 'github',
    path: '/webhooks/github',
    headers: {
      event: ['x-github-event'],
      delivery: ['x-github-delivery'],
      signature: ['x-hub-signature-256'],
      names: { event: 'X-GitHub-Event', delivery: 'X-GitHub-Delivery' },
    },
    digest: signatureDigest,
    limits: EVENT_BODY_LIMITS,
    secrets: secret ? [secret, ...(previous ? [previous] : [])] : [],
    ...(deps.ownLogin ? { ownLogin: deps.ownLogin } : {}),
    decide: (event, payload, settings) => Promise.resolve(jobForEvent(event, payload, settings)),
  };
  const gitea = deps.gitea;
  if (gitea === undefined) return [github];
  return [
    github,
    {
      name: 'gitea',
      path: '/webhooks/gitea',
      // Forgejo sends its own headers beside Gitea's; Gitea sends only its own.
      headers: {
        event: ['x-forgejo-event', 'x-gitea-event'],
        delivery: ['x-forgejo-delivery', 'x-gitea-delivery'],
        signature: ['x-forgejo-signature', 'x-gitea-signature'],
        names: { event: 'X-Gitea-Event', delivery: 'X-Gitea-Delivery' },
      },
      digest: hexDigest,
      limits: GITEA_BODY_LIMITS,
      secrets: gitea.webhookSecret ? [gitea.webhookSecret] : [],
      ...(gitea.ownLogin ? { ownLogin: gitea.ownLogin } : {}),
      decide: async (event, payload, settings) => {
        const { decision, commandAuthor } = giteaJobForEvent(event, payload, settings);
        if (commandAuthor === undefined) return decision;
        // Gitea's payload does not say who may push: the forge is asked, as GitHub's
        // author_association would have told.
        let may: boolean;
        try {
          may = await gitea.mayCommand(commandAuthor, commandAuthor.login);
        } catch (err) {
          throw new HttpError(503, 'could not ask the forge who may give commands', undefined, {
            cause: err,
          });
        }
        return may
          ? decision
          : { action: 'ignore', reason: 'command from an author without write access' };
      },
    },
  ];
}
