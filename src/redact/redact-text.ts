/**
 * Finds credentials by their shape in any text (manifest strings, diffs, error messages):
 * PEM private keys and a few well-known token formats. Shapes only, no guessing from
 * entropy: a false positive hides a line, a false negative publishes a key.
 */
import { REDACTED } from './secret-markers.js';

export { REDACTED };
/** A redacted value that differs from the one at base (only ever on the head side). */
export const REDACTED_CHANGED = '<redacted:changed>';

interface Shape {
  pattern: RegExp;
  /** Capture group kept before the marker (for `key = value` shapes), or 0. */
  keep: number;
}

const SHAPES: readonly Shape[] = [
  // A PEM private key of any flavour (RSA, EC, OPENSSH, ENCRYPTED, PGP ... BLOCK), up to
  // its END line or, when truncated, the end of the text. Certificates are public.
  {
    pattern:
      /-----BEGIN ([A-Z0-9 ]{0,40})PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
    keep: 0,
  },
  // GitHub personal, OAuth, user-to-server, server-to-server and refresh tokens.
  { pattern: /\bgh[pousr]_[A-Za-z0-9]{36,}/g, keep: 0 },
  { pattern: /\bgithub_pat_[A-Za-z0-9_]{22,}/g, keep: 0 },
  { pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g, keep: 0 },
  { pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g, keep: 0 },
  // AWS access key ids, and the secret key where a credentials file or env names it.
  { pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, keep: 0 },
  {
    pattern: /(aws_secret_access_key["']?\s*[:=]\s*["']?)[A-Za-z0-9/+=]{40}(?![A-Za-z0-9/+=])/gi,
    keep: 1,
  },
  // JWTs: base64url JSON header (`eyJ`), payload, signature (empty for alg none).
  { pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/g, keep: 0 },
];

/**
 * The shortest Secret value hidden wherever it occurs. Shorter values (`true`, `8080`,
 * `admin`) are common words in any manifest: hiding every occurrence would destroy the
 * diff, so they cannot be protected outside the Secret itself.
 */
export const MIN_SECRET_VALUE_LENGTH = 8;

/** Known Secret values, indexed by their first MIN_SECRET_VALUE_LENGTH characters. */
export interface SecretValueIndex {
  /** Values sharing a prefix, longest first. */
  readonly byPrefix: ReadonlyMap<string, readonly string[]>;
}

export const NO_SECRET_VALUES: SecretValueIndex = { byPrefix: new Map() };

/** An index of `values`, ignoring those shorter than MIN_SECRET_VALUE_LENGTH. */
export function indexSecretValues(values: Iterable<string>): SecretValueIndex {
  const byPrefix = new Map<string, string[]>();
  for (const value of new Set(values)) {
    if (value.length < MIN_SECRET_VALUE_LENGTH) continue;
    const prefix = value.slice(0, MIN_SECRET_VALUE_LENGTH);
    byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), value]);
  }
  for (const list of byPrefix.values()) list.sort((a, b) => b.length - a.length);
  return { byPrefix };
}

/** `index` and `values` together; `index` itself when it holds them all already. */
export function addSecretValues(
  index: SecretValueIndex,
  values: readonly string[],
): SecretValueIndex {
  const known = (value: string): boolean =>
    value.length < MIN_SECRET_VALUE_LENGTH ||
    index.byPrefix.get(value.slice(0, MIN_SECRET_VALUE_LENGTH))?.includes(value) === true;
  if (values.every(known)) return index;
  return indexSecretValues([...[...index.byPrefix.values()].flat(), ...values]);
}

/**
 * `text` with every occurrence of a known value replaced by `marker`; overlapping or
 * touching occurrences become one marker, so no part of either survives.
 */
function redactKnownValues(text: string, marker: string, secrets: SecretValueIndex): string {
  if (secrets.byPrefix.size === 0 || text.length < MIN_SECRET_VALUE_LENGTH) return text;
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i + MIN_SECRET_VALUE_LENGTH <= text.length; i++) {
    const candidates = secrets.byPrefix.get(text.slice(i, i + MIN_SECRET_VALUE_LENGTH));
    const found = candidates?.find((value) => text.startsWith(value, i));
    if (found === undefined) continue;
    const last = ranges[ranges.length - 1];
    if (last !== undefined && i <= last[1]) last[1] = Math.max(last[1], i + found.length);
    else ranges.push([i, i + found.length]);
  }
  if (ranges.length === 0) return text;
  let out = '';
  let from = 0;
  for (const [start, end] of ranges) {
    out += text.slice(from, start) + marker;
    from = end;
  }
  return out + text.slice(from);
}

/**
 * `text` with every known Secret value (see indexSecretValues) and every
 * credential-shaped part replaced by `marker`.
 */
export function redactText(
  text: string,
  marker: string = REDACTED,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): string {
  let out = redactKnownValues(text, marker, secrets);
  for (const { pattern, keep } of SHAPES) {
    out = out.replace(pattern, (...groups: unknown[]) => {
      const kept = keep > 0 ? groups[keep] : '';
      return `${typeof kept === 'string' ? kept : ''}${marker}`;
    });
  }
  return out;
}

export function hasSecretShape(text: string): boolean {
  return redactText(text) !== text;
}

/** Field and env var names whose value is a credential whatever it looks like. */
export const SECRET_NAME = /^aws_secret_access_key$/i;
