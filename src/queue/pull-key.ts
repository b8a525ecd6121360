import type { PullRef } from './types.js';

/**
 * One stable key per pull request, used for Redis keys and file names. GitHub names are
 * case-insensitive, so the key is lower-cased; every character outside [a-z0-9_-] is
 * percent-encoded, so `a/b` + `c` and `a` + `b/c` never share a key and no key can
 * contain `/` or `..`.
 */
export function pullKey(pull: PullRef): string {
  return `${repositoryKey(pull)}~${pull.pullNumber}`;
}

/** The same for the pull request's repository: what fair scheduling counts jobs by. */
export function repositoryKey(pull: Pick<PullRef, 'owner' | 'repo'>): string {
  return `${encodePart(pull.owner)}~${encodePart(pull.repo)}`;
}

function encodePart(part: string): string {
  return Array.from(Buffer.from(part.toLowerCase(), 'utf8'))
    .map((byte) => {
      const char = String.fromCharCode(byte);
      return /[a-z0-9_-]/.test(char) ? char : `%${byte.toString(16).padStart(2, '0')}`;
    })
    .join('');
}

/** The pull request a pullKey names, its names in lower case; undefined for anything else. */
export function pullOfKey(key: string): PullRef | undefined {
  const m = /^([a-z0-9_%-]+)~([a-z0-9_%-]+)~([1-9][0-9]{0,9})$/.exec(key);
  if (!m) return undefined;
  try {
    const owner = decodeURIComponent(m[1] ?? '');
    const repo = decodeURIComponent(m[2] ?? '');
    return { owner, repo, pullNumber: Number(m[3]) };
  } catch {
    return undefined;
  }
}
