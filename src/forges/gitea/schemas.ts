/**
 * The fields fluxlens reads from Gitea's and Forgejo's API answers (their v1 API is one),
 * parsed at the door; everything else is dropped.
 */
import { z } from 'zod';

export const User = z.object({ id: z.number(), login: z.string().min(1) });

export const Comment = z.object({
  id: z.number().int().positive(),
  body: z.string().nullable().optional(),
  user: z.object({ login: z.string() }).nullable().optional(),
});

export const Comments = z.array(Comment);

const Branch = z.object({
  ref: z.string(),
  sha: z.string().min(1),
  repo_id: z.number(),
});

export const Pull = z.object({
  number: z.number().int().positive(),
  state: z.enum(['open', 'closed']),
  draft: z.boolean().optional(),
  head: Branch,
  base: Branch,
});

/** GET /version: Gitea answers `1.27.3`, Forgejo `11.0.1+gitea-1.22.0`. */
export const Version = z.object({ version: z.string().min(1) });

/** GET /repos/{owner}/{repo}/collaborators/{user}/permission. */
export const Permission = z.object({ permission: z.string() });

/** What a write answers; only that it answered JSON matters. */
export const Anything = z.unknown();
