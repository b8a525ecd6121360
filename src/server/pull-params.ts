/** The `:owner/:repo/...:number` route parameters, parsed into a PullRef at the door. */
import { z } from 'zod';
import { repositoryKey } from '../model/index.js';
import type { PullRef } from '../queue/index.js';
import { OwnerName, RepositoryName } from './event-schemas.js';
import { HttpError } from './http-error.js';

const PullParams = z.object({
  /** Only in another forge's paths (`/reports/gitea/...`); GitHub's name none. */
  forge: z.enum(['gitea']).optional(),
  owner: OwnerName,
  repo: RepositoryName,
  number: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

export const RenderRequest = z.object({
  owner: OwnerName,
  repo: RepositoryName,
  pull_number: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
});

export function pullFromParams(params: unknown): PullRef {
  const parsed = PullParams.safeParse(params);
  if (!parsed.success) throw new HttpError(400, 'invalid owner, repository or pull number');
  const { forge, owner, repo, number } = parsed.data;
  return { ...(forge === undefined ? {} : { forge }), owner, repo, pullNumber: number };
}

export function inAllowlist(pull: PullRef, allowlist: ReadonlySet<string> | undefined): boolean {
  return allowlist === undefined || allowlist.has(repositoryKey(pull.owner, pull.repo));
}
