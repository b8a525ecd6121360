import { FORGE_NAMES, forgeOf } from '../model/index.js';
import type { PullRef } from './types.js';

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
