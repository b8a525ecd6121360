/**
 * Compares a presented credential with the configured one in constant time. Both sides are
 * hashed first so the comparison is over equal lengths and leaks neither value nor length.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(header ?? '');
  return match?.[1];
}
