/**
 * The fields fluxlens reads from GitHub's answers, parsed at the door; everything else
 * GitHub sends is dropped.
 */
import { z } from 'zod';

export const App = z.object({ id: z.number(), slug: z.string().min(1) });

export const User = z.object({ login: z.string().min(1) });

export const Token = z.object({ token: z.string().min(1) });

export const CheckRun = z.object({
  id: z.number(),
  status: z.string(),
  conclusion: z.string().nullable().optional(),
  details_url: z.string().nullable().optional(),
  app: z.object({ id: z.number() }).nullable().optional(),
  output: z
    .object({
      title: z.string().nullable().optional(),
      summary: z.string().nullable().optional(),
      text: z.string().nullable().optional(),
      annotations_count: z.number().optional(),
    })
    .optional(),
});
export type CheckRun = z.infer<typeof CheckRun>;

export const CheckRunList = z.object({ check_runs: z.array(CheckRun) });

export const Comment = z.object({
  id: z.number(),
  body: z.string().nullable().optional(),
  user: z.object({ login: z.string(), type: z.string().optional() }).nullable(),
  /** The App that wrote the comment (set by GitHub, never by a person); its id is enough. */
  performed_via_github_app: z.object({ id: z.number() }).nullable().optional(),
});
export type Comment = z.infer<typeof Comment>;

export const Id = z.object({ id: z.number() });

const RepoName = z.object({ full_name: z.string() });

export const Pull = z.object({
  number: z.number().int().positive(),
  state: z.enum(['open', 'closed']),
  draft: z.boolean().optional(),
  head: z.object({ sha: z.string().min(1), ref: z.string(), repo: RepoName.nullable() }),
  base: z.object({ ref: z.string().min(1), repo: RepoName }),
});

export const InstallationRepoData = z.object({
  name: z.string().min(1),
  owner: z.object({ login: z.string().min(1) }),
  archived: z.boolean().optional(),
});

/** An installation as GET /repos/{owner}/{repo}/installation answers; only its id is used. */
export const Installation = z.object({ id: z.number().int().positive() });

/** GET /app/installations. */
export const Installations = z.array(Installation);
