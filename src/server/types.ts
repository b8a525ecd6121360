/**
 * What buildServer is given and what the event rules decide. Everything that touches the
 * outside world (queue, result store, GitHub write-backs, readiness) arrives injected.
 */
import type { Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { RuleReference } from '../mcp/index.js';
import type {
  DeliveryLedger,
  JobQueue,
  PullRef,
  RepositoryRef,
  ResultStore,
  ReviewJob,
} from '../queue/index.js';

export type SkipReason = 'draft' | 'fork';

/** A PR we will not render: the caller may post a neutral check run saying why. */
export interface SkipInfo {
  pull: PullRef;
  headSha: string;
  reason: SkipReason;
  installationId?: number;
  deliveryId: string;
}

/** A comment command we accepted: the caller acknowledges it with a reaction. */
export interface ReactInfo {
  pull: PullRef;
  commentId: number;
  installationId?: number;
}

export interface Readiness {
  ok: boolean;
  checks: Record<string, boolean>;
  /** Why not ready, in a few words (never a credential). */
  reason?: string;
}

export interface ServerDeps {
  logger: Logger;
  queue: JobQueue;
  /** Forgets a delivery whose enqueue failed, so GitHub's redelivery of it is accepted. */
  deliveries: DeliveryLedger;
  results: ResultStore;
  /** Verifies X-Hub-Signature-256; required unless insecureNoWebhookSecret. */
  webhookSecret?: string;
  /** Accepted besides webhookSecret while the GitHub App changes over to it. */
  previousWebhookSecret?: string;
  /** Accept unsigned webhooks: local development only. */
  insecureNoWebhookSecret?: boolean;
  /** Enables the /api routes and report access by bearer token. */
  apiToken?: string;
  /** Enables signed, expiring report links. */
  reportSigningKey?: string;
  publicUrl?: string;
  renderDrafts: boolean;
  renderForks: boolean;
  /** "owner/repo", case-insensitive; absent means every repository the App sees. */
  repositoryAllowlist?: string[];
  /** Name of our check run: a re-request of any other check run is not ours. */
  checkRunName: string;
  /** Our GitHub App id: when set, check events of other apps are ignored. */
  appId?: number;
  clock?: () => Date;
  /** The HTML report renderer, injected so server/ never imports report/. */
  renderReportHtml?: (resultJson: string) => string;
  /** The reviews page's renderer (`/reports`), injected the same way. */
  renderReviewsHtml?: (page: ReviewsPageData) => string;
  /** The PR comment's Markdown of a result, for the MCP endpoint; injected likewise. */
  renderReportMarkdown?: (resultJson: string) => string;
  /** The rule registry, for the MCP endpoint's rules reference; injected likewise. */
  rules?: readonly RuleReference[];
  /**
   * Whether the App is installed on a repository (App mode): the MCP endpoint reaches no
   * other. Absent in token mode, where the token decides what is reachable.
   */
  installation?: (repository: RepositoryRef) => Promise<Installation>;
  /** Defaults to the queue's ping and, when given, credentialRejection. */
  readiness?: () => Promise<Readiness>;
  /** Why GitHub refuses our credentials; undefined while it has not refused them. */
  credentialRejection?: () => string | undefined;
  /** One registry per app (see createMetricsRegistry); a fresh one when absent. */
  metrics?: Registry;
  /** Called off the request path for PRs we skip. */
  skipCheck?: (info: SkipInfo) => Promise<void>;
  /** Called off the request path for a comment command that made a review job. */
  react?: (info: ReactInfo) => Promise<void>;
  /** How long a webhook body may take to arrive before it is refused and its connection closed. */
  bodyTimeoutMs?: number;
  /** Webhook bodies over 256 KiB (or of no declared length) read at once; more get 503. */
  largeBodySlots?: number;
  /** Bot logins whose `/fluxlens render` counts; every other bot's is ignored. */
  commandBots?: string[];
  /** Our own login on GitHub once known (`slug[bot]` or the token's user): never a command author. */
  ownLogin?: () => string | undefined;
  /** Requests per minute; an absent field is no limit. */
  rateLimits?: RateLimits;
  /** Gitea or Forgejo, when configured: POST /webhooks/gitea takes its deliveries. */
  gitea?: GiteaServerDeps;
}

export interface GiteaServerDeps {
  /** Verifies X-Gitea-Signature / X-Forgejo-Signature; required unless insecureNoWebhookSecret. */
  webhookSecret?: string;
  /** Whether `login` may push to the repository: only they may give `/fluxlens render`. */
  mayCommand(repo: { owner: string; repo: string }, login: string): Promise<boolean>;
  /** Our own login on the forge once known: never a command author. */
  ownLogin?: () => string | undefined;
}

export type Installation = { installed: false } | { installed: true; installationId?: number };

export interface RateLimits {
  /** Re-render API calls per API token. */
  apiRendersPerToken?: number;
  /** Re-render API calls per repository owner (one App installation per owner). */
  apiRendersPerOwner?: number;
  /** `/fluxlens render` commands per App installation (per owner without an App). */
  commandsPerInstallation?: number;
}

/** The inputs of the event rules besides the event itself. */
export interface EventSettings {
  renderDrafts: boolean;
  renderForks: boolean;
  /** Lower-cased "owner/repo"; undefined allows every repository. */
  allowlist: ReadonlySet<string> | undefined;
  checkRunName: string;
  appId: number | undefined;
  deliveryId: string;
  /** ISO time of acceptance, stamped on every job. */
  requestedAt: string;
  /** Lower-cased bot logins allowed to give commands. */
  commandBots: ReadonlySet<string>;
  /** Our own login, whose comments are never commands; undefined until known. */
  ownLogin: string | undefined;
}

export type EventDecision =
  | { action: 'enqueue'; jobs: ReviewJob[]; react?: ReactInfo }
  | { action: 'cancel'; pull: PullRef }
  | { action: 'skip'; reason: SkipReason; pull: PullRef; headSha: string; installationId?: number }
  | { action: 'ignore'; reason: string }
  | { action: 'acknowledge'; installationId: number; change: string }
  /** The event is one we act on but the payload lacks fields we need. */
  | { action: 'invalid'; reason: string };

/** What the reviews page shows: the latest stored reviews and the filters asked for. */
export interface ReviewsPageData {
  /** Newest first, at most the page's bound, narrowed to `repository` when given. */
  reviews: Array<{
    pull: PullRef;
    headSha: string;
    /** When the result was stored (ms since the epoch). */
    storedAt: number;
    resultJson: string;
    /** The PR's report, signed when the page was opened with a signed link. */
    reportUrl: string;
  }>;
  /** `owner/repo`, as asked. */
  repository?: string;
  /** Only reviews whose verdict is this level. */
  verdict?: 'none' | 'info' | 'caution' | 'danger';
  /** Query parameters the page's own links and filter form keep (a signed link's). */
  carry: Record<string, string>;
  /** A signed link to the page to pass on, when the API token opened it. */
  shareUrl?: string;
}
