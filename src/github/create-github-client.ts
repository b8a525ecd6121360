/**
 * The GitHub client of one process: App or token credentials, one Octokit per
 * installation (auth-app caches each installation's token until shortly before it
 * expires), and our own identity looked up once. Options are plain data from config.
 */
import { SetupError, classify } from '../errors.js';
import type { LogSink } from '../logger.js';
import {
  DEFAULT_RETRY,
  buildOctokit,
  createPacing,
  type GitHubOctokit,
  type OctokitAuth,
  type PacingOptions,
  type RetryOptions,
} from './build-octokit.js';
import { createGitHubWriter } from './create-github-writer.js';
import { GitHubError, toGitHubError } from './github-error.js';
import { App, Installation, Installations, Token, User } from './schemas.js';
import type { GitHubWriter, Identity } from './types.js';

export interface GitHubClientOptions {
  /** `https://api.github.com`, or `https://HOST/api/v3` for GitHub Enterprise Server. */
  apiUrl: string;
  auth: { kind: 'app'; appId: string; privateKey: string } | { kind: 'token'; token: string };
  logger?: LogSink;
  retry?: RetryOptions;
  pacing?: PacingOptions;
  /** Per request attempt. */
  timeoutMs?: number;
  /** Items per page when listing (GitHub's maximum is 100). */
  pageSize?: number;
  /** Told the HTTP status of every request GitHub answered (`error` when none came): metrics. */
  onResponse?: (status: string) => void;
  /**
   * Token mode: our login when the token cannot look it up. GitHub answers GET /user with
   * 403 to an installation token, such as a workflow's GITHUB_TOKEN (`github-actions[bot]`);
   * without a login such a token is known only as some App's (see Identity).
   */
  login?: string;
}

export interface GitHubClient {
  /** The writer for one App installation (from the job); token mode ignores the id. */
  forInstallation(installationId?: number): GitHubWriter;
  /** A token for git fetches: the installation's (cached) token, or the PAT. */
  installationToken(installationId?: number): Promise<string>;
  /** Our login (`<slug>[bot]` for an App); throws a GitHubError naming no secret. */
  verifyCredentials(): Promise<string>;
  /** The App's installations (for the periodic resync); token mode has none of its own. */
  listInstallations(): Promise<number[]>;
  /** The installation that covers a repository (App mode); undefined in token mode. */
  installationFor(repo: { owner: string; repo: string }): Promise<number | undefined>;
}

/** Octokits kept for installations; the least recently used goes first. */
const MAX_CACHED_INSTALLATIONS = 500;
const silentLogger: LogSink = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function apiUrlOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SetupError('the GitHub API URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new SetupError('the GitHub API URL must use https or http');
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/** Strings that must never appear in a message: the token, or the key and its lines. */
function secretsOf(auth: GitHubClientOptions['auth']): string[] {
  if (auth.kind === 'token') return [auth.token];
  const lines = auth.privateKey.split('\n').map((line) => line.trim());
  return [auth.privateKey, ...lines.filter((line) => line.length >= 16 && !line.startsWith('-'))];
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const { auth } = options;
  const apiUrl = apiUrlOf(options.apiUrl);
  const appId = auth.kind === 'app' ? Number(auth.appId) : undefined;
  if (appId !== undefined && !(Number.isInteger(appId) && appId > 0)) {
    throw new SetupError('the GitHub App id must be a positive integer');
  }
  const secrets = secretsOf(auth);
  const common = {
    apiUrl,
    logger: options.logger ?? silentLogger,
    retry: { ...DEFAULT_RETRY, ...options.retry },
    pacing: createPacing(options.pacing),
    timeoutMs: options.timeoutMs ?? 30_000,
    onResponse: options.onResponse ?? (() => {}),
  };
  const pageSize = options.pageSize ?? 100;
  const octokits = new Map<string, GitHubOctokit>();

  function octokitFor(installationId?: number): GitHubOctokit {
    const key = auth.kind === 'token' ? 'token' : String(installationId ?? 'app');
    const cached = octokits.get(key);
    octokits.delete(key);
    const octokitAuth: OctokitAuth =
      auth.kind === 'app' && installationId !== undefined ? { ...auth, installationId } : auth;
    const octokit = cached ?? buildOctokit({ ...common, auth: octokitAuth, throttleId: key });
    octokits.set(key, octokit);
    const oldest = octokits.keys().next().value;
    if (octokits.size > MAX_CACHED_INSTALLATIONS && oldest !== undefined) octokits.delete(oldest);
    return octokit;
  }

  function requireInstallation(installationId: number | undefined): number {
    if (installationId !== undefined) return installationId;
    throw new GitHubError('a GitHub App call needs the installation id', { transient: false });
  }

  async function fetchLogin(): Promise<string> {
    if (auth.kind === 'app') {
      const { data } = await octokitFor().request('GET /app');
      return `${App.parse(data).slug}[bot]`;
    }
    if (options.login !== undefined) return options.login;
    const { data } = await octokitFor().request('GET /user');
    return User.parse(data).login;
  }

  /** Our login; for a token GitHub refuses to name (an App installation's), which kind it is. */
  async function fetchIdentity(): Promise<Identity> {
    try {
      return { kind: 'login', login: await fetchLogin() };
    } catch (err) {
      const error = toGitHubError(err, secrets);
      if (auth.kind === 'token' && error.status === 403 && classify(error) !== 'transient') {
        return { kind: 'app-installation' };
      }
      throw error;
    }
  }

  let identity: Promise<Identity> | undefined;
  const ownIdentity = (): Promise<Identity> => {
    identity ??= fetchIdentity().catch((err: unknown) => {
      identity = undefined;
      throw err;
    });
    return identity;
  };

  return {
    forInstallation(installationId) {
      const id = auth.kind === 'app' ? requireInstallation(installationId) : undefined;
      const ctx = {
        octokit: octokitFor(id),
        mode: auth.kind,
        ...(appId === undefined ? {} : { appId }),
        identity: ownIdentity,
        pageSize,
      };
      return createGitHubWriter(ctx, secrets);
    },
    async installationToken(installationId) {
      if (auth.kind === 'token') return auth.token;
      try {
        const octokit = octokitFor(requireInstallation(installationId));
        return Token.parse(await octokit.auth({ type: 'installation' })).token;
      } catch (err) {
        throw toGitHubError(err, secrets);
      }
    },
    async installationFor({ owner, repo }) {
      if (auth.kind === 'token') return undefined;
      try {
        const { data } = await octokitFor().request('GET /repos/{owner}/{repo}/installation', {
          owner,
          repo,
        });
        return Installation.parse(data).id;
      } catch (err) {
        throw toGitHubError(err, secrets);
      }
    },
    async listInstallations() {
      if (auth.kind === 'token') return [];
      try {
        const items = await octokitFor().paginate('GET /app/installations', { per_page: pageSize });
        return Installations.parse(items).map((i) => i.id);
      } catch (err) {
        throw toGitHubError(err, secrets);
      }
    },
    async verifyCredentials() {
      try {
        const login = await fetchLogin();
        identity = Promise.resolve({ kind: 'login', login });
        return login;
      } catch (err) {
        const error = toGitHubError(err, secrets);
        if (error.status !== 401) throw error;
        const what = auth.kind === 'app' ? `App ${auth.appId} and its private key` : 'token';
        throw new GitHubError(`GitHub rejected the ${what} (${error.message})`, {
          status: 401,
          transient: false,
        });
      }
    },
  };
}
