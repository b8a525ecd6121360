/**
 * The webhook fields the event rules read, and nothing more: GitHub adds fields freely,
 * and a payload that lacks one of ours is refused rather than guessed at.
 */
import { z } from 'zod';
import { isOwnerName, isRepositoryName } from '../model/index.js';

export const Sha = z.string().regex(/^[0-9a-f]{40}$/);
export const Id = z.number().int().positive();

export const OwnerName = z.string().refine(isOwnerName, 'not a GitHub owner name');
export const RepositoryName = z.string().refine(isRepositoryName, 'not a GitHub repository name');

/**
 * The repository, named once: `full_name` must be exactly `owner.login/name`, so the
 * allowlist, the job and every later call see one and the same repository.
 */
export const Repository = z
  .object({
    id: Id,
    name: RepositoryName,
    full_name: z.string().max(140),
    owner: z.object({ login: OwnerName }),
  })
  .refine((r) => r.full_name === `${r.owner.login}/${r.name}`, {
    message: 'full_name disagrees with owner.login and name',
    path: ['full_name'],
  });

const Installation = z.object({ id: Id }).optional();

/** Head or base of a PR; `repo` is null when a fork's repository was deleted. */
const Branch = z.object({
  ref: z.string().min(1).max(255),
  sha: Sha,
  repo: z.object({ id: Id }).nullable(),
});

export const PullRequestEvent = z.object({
  action: z.string(),
  repository: Repository,
  installation: Installation,
  pull_request: z.object({
    number: Id,
    draft: z.boolean().optional(),
    head: Branch,
    base: Branch,
  }),
  changes: z.object({ base: z.object({}).optional() }).optional(),
});
export type PullRequestEvent = z.infer<typeof PullRequestEvent>;

/** A PR as check_run and check_suite events list it. */
const CheckPull = z.object({ number: Id, head: Branch, base: Branch });
export type CheckPull = z.infer<typeof CheckPull>;

const App = z.object({ id: Id }).nullable().optional();

export const CheckRunEvent = z.object({
  action: z.string(),
  repository: Repository,
  installation: Installation,
  check_run: z.object({
    name: z.string(),
    app: App,
    pull_requests: z.array(CheckPull).max(100),
  }),
  /** Set on `requested_action`: which of the run's buttons was pressed. */
  requested_action: z.object({ identifier: z.string().max(100) }).nullish(),
  /** Who pressed it (or re-requested the run). */
  sender: z.object({ login: z.string().min(1).max(100), type: z.string().max(40) }).optional(),
});
export type CheckRunEvent = z.infer<typeof CheckRunEvent>;

export const CheckSuiteEvent = z.object({
  action: z.string(),
  repository: Repository,
  installation: Installation,
  check_suite: z.object({
    app: App,
    pull_requests: z.array(CheckPull).max(100),
  }),
});

export const IssueCommentEvent = z.object({
  action: z.string(),
  repository: Repository,
  installation: Installation,
  issue: z.object({
    number: Id,
    /** Present only when the issue is a pull request. */
    pull_request: z.object({}).nullable().optional(),
  }),
  comment: z.object({
    id: Id,
    body: z.string().nullable(),
    author_association: z.string(),
    user: z.object({ login: z.string().max(100), type: z.string().max(40) }),
  }),
});

export const InstallationEvent = z.object({
  action: z.string(),
  installation: z.object({ id: Id }),
});
