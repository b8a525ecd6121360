/**
 * The GitHub emulator's answers in GitHub's own shapes: each starts from the example GitHub
 * publishes for that object (its REST description's `components.examples`) with the
 * emulator's state laid over it, so every field GitHub always sends is there and the
 * answers pass the description's response schemas (github-emulator-contract.ts).
 */
import { githubExample } from './github-emulator-contract.js';
import type {
  EmulatedCheckRun,
  EmulatedComment,
  EmulatedPull,
  EmulatedStatus,
} from './github-emulator-state.js';

type Json = Record<string, unknown>;

const WEB = 'https://github.com';
const at = (value: unknown): Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};

/** The token's own user (GET /user), as GitHub's private-user. */
export function privateUserJson(login: string): Json {
  return { ...githubExample('private-user'), login, html_url: `${WEB}/${login}` };
}

/** A user or a bot (`slug[bot]`, type Bot) as GitHub's simple-user. */
export function userJson(login: string, type: 'User' | 'Bot' = 'User'): Json {
  return { ...githubExample('simple-user'), login, type, html_url: `${WEB}/${login}` };
}

/** GET .../collaborators/{username}/permission: GitHub's repository-collaborator-permission. */
export function collaboratorPermissionJson(login: string, permission: string): Json {
  const example = githubExample(
    'repository-collaborator-permission-response-if-user-has-admin-permissions',
  );
  const roles: Record<string, string> = { admin: 'admin', write: 'write', read: 'read' };
  const role = roles[permission] ?? 'none';
  const user = example.user;
  const isUser = typeof user === 'object' && user !== null;
  return {
    ...example,
    permission,
    role_name: role,
    user: isUser ? { ...user, login, role_name: role, html_url: `${WEB}/${login}` } : null,
  };
}

/** An App as GitHub's integration (GET /app, and `performed_via_github_app`). */
export function appJson(app: { id: number; slug: string }): Json {
  return {
    ...githubExample('integration'),
    id: app.id,
    slug: app.slug,
    name: app.slug,
    html_url: `${WEB}/apps/${app.slug}`,
  };
}

export function installationJson(installation: { id: number; account: string }): Json {
  const example = githubExample('installation');
  return {
    ...example,
    id: installation.id,
    account: { ...at(example.account), login: installation.account },
  };
}

export function installationTokenJson(token: string, expiresAt: string): Json {
  return { ...githubExample('installation-token'), token, expires_at: expiresAt };
}

/** A repository as the installation's list and a pull's head and base carry it. */
function repositoryJson(example: unknown, fullName: string, fork: boolean): Json {
  const [owner = '', name = ''] = fullName.split('/');
  const repo = at(example);
  return {
    ...repo,
    name,
    full_name: fullName,
    fork,
    archived: false,
    owner: { ...at(repo.owner), login: owner },
    html_url: `${WEB}/${fullName}`,
  };
}

export function installationRepoJson(fullName: string, id: number): Json {
  const { repositories } = githubExample('repository-paginated-2');
  const first: unknown = Array.isArray(repositories) ? repositories[0] : undefined;
  return { ...repositoryJson(first, fullName, false), id };
}

/** A pull request: `simple` for the list (pull-request-simple), else the whole one. */
export function pullJson(pull: EmulatedPull, apiUrl: string, simple = false): Json {
  const example = githubExample(simple ? 'pull-request-simple' : 'pull-request');
  const fullName = `${pull.owner}/${pull.repo}`;
  const headRepo = pull.fork ? `contributor/${pull.repo}` : fullName;
  const head = at(example.head);
  const base = at(example.base);
  return {
    ...example,
    url: `${apiUrl}/repos/${fullName}/pulls/${pull.number}`,
    html_url: `${WEB}/${fullName}/pull/${pull.number}`,
    number: pull.number,
    state: pull.state,
    draft: pull.draft,
    // GitHub's example names teams without the `type` its own schema requires.
    requested_teams: [],
    ...(simple ? {} : { merged: false }),
    head: {
      ...head,
      sha: pull.headSha,
      ref: pull.headRef,
      label: `${headRepo.split('/')[0] ?? ''}:${pull.headRef}`,
      repo: repositoryJson(head.repo, headRepo, pull.fork),
    },
    base: {
      ...base,
      ref: pull.baseRef,
      label: `${pull.owner}:${pull.baseRef}`,
      repo: repositoryJson(base.repo, fullName, false),
    },
  };
}

export function checkRunJson(run: EmulatedCheckRun, appSlug: string, apiUrl: string): Json {
  const example = githubExample('check-run');
  const url = `${apiUrl}/repos/${run.owner}/${run.repo}/check-runs/${run.id}`;
  return {
    ...example,
    id: run.id,
    url,
    html_url: `${WEB}/${run.owner}/${run.repo}/runs/${run.id}`,
    name: run.name,
    head_sha: run.head_sha,
    status: run.status,
    conclusion: run.conclusion,
    completed_at: run.status === 'completed' ? example.completed_at : null,
    details_url: run.details_url,
    external_id: run.external_id,
    app: appJson({ id: run.app_id, slug: appSlug }),
    pull_requests: [],
    ...(run.actions.length > 0 ? { actions: run.actions } : {}),
    output: {
      ...run.output,
      annotations_count: run.annotations.length,
      annotations_url: `${url}/annotations`,
    },
  };
}

const typeOf = (login: string): 'User' | 'Bot' => (login.endsWith('[bot]') ? 'Bot' : 'User');

export function statusJson(status: EmulatedStatus): Json {
  return {
    ...githubExample('status'),
    id: status.id,
    state: status.state,
    description: status.description,
    target_url: status.target_url,
    context: status.context,
    creator: userJson(status.creator, typeOf(status.creator)),
  };
}

export function commentJson(comment: EmulatedComment, apiUrl: string): Json {
  const issue = `${comment.owner}/${comment.repo}/issues/${comment.issueNumber}`;
  return {
    ...githubExample('issue-comment'),
    id: comment.id,
    url: `${apiUrl}/repos/${comment.owner}/${comment.repo}/issues/comments/${comment.id}`,
    html_url: `${WEB}/${issue}#issuecomment-${comment.id}`,
    issue_url: `${apiUrl}/repos/${issue}`,
    body: comment.body,
    user: userJson(comment.author, comment.authorType),
    performed_via_github_app: comment.viaApp === null ? null : appJson(comment.viaApp),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
  };
}

export function reactionJson(reaction: { id: number; content: string; author: string }): Json {
  return {
    ...githubExample('reaction'),
    id: reaction.id,
    content: reaction.content,
    user: userJson(reaction.author, typeOf(reaction.author)),
  };
}
