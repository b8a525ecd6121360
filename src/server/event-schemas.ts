/**
 * The webhook fields the event rules read, and nothing more: GitHub adds fields freely,
 * and a payload that lacks one of ours is refused rather than guessed at.
 */
import { z } from 'zod';
import { isOwnerName, isRepositoryName } from '../model/index.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/);
const Id = z.number().int().positive();

export const OwnerNameSchema = z.string().refine(isOwnerName, 'not a GitHub owner name');
export const RepositoryNameSchema = z
  .string()
  .refine(isRepositoryName, 'not a GitHub repository name');

/**
 * The repository, named once: `full_name` must be exactly `owner.login/name`, so the
 * allowlist, the job and every later call see one and the same repository.
 */
const RepositorySchema = z
  .object({
    id: Id,
    name: RepositoryNameSchema,
    full_name: z.string().max(140),
    owner: z.object({ login: OwnerNameSchema }),
  })
  .refine((r) => r.full_name === `${r.owner.login}/${r.name}`, {
    message: 'full_name disagrees with owner.login and name',
    path: ['full_name'],
  });

const InstallationSchema = z.object({ id: Id }).optional();

/** Head or base of a PR; `repo` is null when a fork's repository was deleted. */
const BranchSchema = z.object({
  ref: z.string().min(1).max(255),
  sha: Sha,
  repo: z.object({ id: Id }).nullable(),
});

export const PullRequestEventSchema = z.object({
  action: z.string(),
  repository: RepositorySchema,
  installation: InstallationSchema,
  pull_request: z.object({
    number: Id,
    draft: z.boolean().optional(),
    head: BranchSchema,
    base: BranchSchema,
  }),
  changes: z.object({ base: z.object({}).optional() }).optional(),
});
export type PullRequestEvent = z.infer<typeof PullRequestEventSchema>;

/** A PR as check_run and check_suite events list it. */
const CheckPullSchema = z.object({ number: Id, head: BranchSchema, base: BranchSchema });
export type CheckPull = z.infer<typeof CheckPullSchema>;

const AppSchema = z.object({ id: Id }).nullable().optional();

export const CheckRunEventSchema = z.object({
  action: z.string(),
  repository: RepositorySchema,
  installation: InstallationSchema,
  check_run: z.object({
    name: z.string(),
    app: AppSchema,
    pull_requests: z.array(CheckPullSchema).max(100),
  }),
});

export const CheckSuiteEventSchema = z.object({
  action: z.string(),
  repository: RepositorySchema,
  installation: InstallationSchema,
  check_suite: z.object({
    app: AppSchema,
    pull_requests: z.array(CheckPullSchema).max(100),
  }),
});

export const IssueCommentEventSchema = z.object({
  action: z.string(),
  repository: RepositorySchema,
  installation: InstallationSchema,
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

export const InstallationEventSchema = z.object({
  action: z.string(),
  installation: z.object({ id: Id }),
});
