import { createHash } from 'node:crypto';
import { FORGE_NAMES, forgeOf } from '../model/index.js';
import type { PullRef, QueuedJob, RangeRef, RenderRef, RepositoryRef } from './types.js';

/**
 * One stable key per pull request, used for Redis keys and file names. GitHub names are
 * case-insensitive, so the key is lower-cased; every character outside [a-z0-9_-] is
 * percent-encoded, so `a/b` + `c` and `a` + `b/c` never share a key and no key can
 * contain `/` or `..`. A forge other than GitHub comes first, as one more part, so its pull
 * requests never share a key with GitHub's (whose keys stay as they were).
 */
export function pullKey(pull: PullRef): string {
  return `${repositoryKey(pull)}~${pull.pullNumber}`;
}

/** The same for the pull request's repository: what fair scheduling counts jobs by. */
export function repositoryKey(pull: Pick<PullRef, 'forge' | 'owner' | 'repo'>): string {
  const forge = forgeOf(pull);
  const key = `${encodePart(pull.owner)}~${encodePart(pull.repo)}`;
  return forge === 'github' ? key : `${forge}~${key}`;
}

function encodePart(part: string): string {
  return Array.from(Buffer.from(part.toLowerCase(), 'utf8'))
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[a-z0-9_-]/.test(char) ? char : `%${byte.toString(16).padStart(2, '0')}`;
    })
    .join('');
}

/**
 * The pull request a pullKey names, its names in lower case (with its forge when not
 * GitHub's); undefined for anything else.
 */
export function pullOfKey(key: string): PullRef | undefined {
  const parts = key.split('~');
  if (parts.length !== 3 && parts.length !== 4) return undefined;
  const forge =
    parts.length === 4 ? FORGE_NAMES.find((f) => f !== 'github' && f === parts[0]) : undefined;
  if (parts.length === 4 && forge === undefined) return undefined;
  const m = /^([a-z0-9_%-]+)~([a-z0-9_%-]+)~([1-9][0-9]{0,9})$/.exec(parts.slice(-3).join('~'));
  if (!m) return undefined;
  try {
    const owner = decodeURIComponent(m[1] ?? '');
    const repo = decodeURIComponent(m[2] ?? '');
    return { ...(forge ? { forge } : {}), owner, repo, pullNumber: Number(m[3]) };
  } catch {
    return undefined;
  }
}

/**
 * What a job is about, as the queue sees it: the key its coalescing state lives under
 * (its PR's, or one per repository and pair of revisions for a range), its repository,
 * and the head it names, if any.
 */
export function jobSubject(job: QueuedJob): {
  key: string;
  repository: RepositoryRef;
  headSha: string | undefined;
} {
  if ('render' in job) {
    const { owner, repo, rev, path } = job.render;
    const what = createHash('sha256').update(`${rev}\0${path}`).digest('hex').slice(0, 32);
    return {
      key: `${repositoryKey(job.render)}~render~${what}`,
      repository: { owner, repo },
      headSha: undefined,
    };
  }
  if ('range' in job) {
    const { owner, repo, base, head } = job.range;
    const revisions = createHash('sha256').update(`${base}\0${head}`).digest('hex').slice(0, 32);
    return {
      key: `${repositoryKey(job.range)}~range~${revisions}`,
      repository: { owner, repo },
      headSha: undefined,
    };
  }
  return { key: pullKey(job.pull), repository: job.pull, headSha: job.headSha };
}

/** The fields a job's state names it by: its PR, or its range. */
export function jobFields(
  job: QueuedJob,
): { pull: PullRef } | { range: RangeRef } | { render: RenderRef } {
  if ('render' in job) return { render: job.render };
  return 'range' in job ? { range: job.range } : { pull: job.pull };
}

/** What a worker's log lines say of a job. */
export function jobLogFields(job: QueuedJob): object {
  if ('render' in job) return { ...job.render };
  if ('range' in job) return { ...job.range };
  return { ...job.pull, headSha: job.headSha, deliveryId: job.deliveryId };
}
