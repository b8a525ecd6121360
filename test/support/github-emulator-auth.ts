/**
 * How the GitHub emulator tells callers apart: App JWTs checked like GitHub checks them,
 * and a helper that makes an App key pair for a test.
 */
import { generateKeyPairSync, verify } from 'node:crypto';

/** An App key pair like GitHub issues (PKCS#1 private key), generated per test. */
export function createTestAppKey(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)
    : undefined;
}

/** GitHub's checks on an App JWT: RS256 by the App's key, iss = App id, live, <= 10 min. */
export function validJwt(jwt: string, app: { id: number; publicKey: string }): boolean {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  try {
    if (decodeJson(header)?.alg !== 'RS256') return false;
    const signed = Buffer.from(`${header}.${payload}`);
    if (!verify('sha256', signed, app.publicKey, Buffer.from(signature, 'base64url'))) return false;
    const { iat, exp, iss } = decodeJson(payload) ?? {};
    const now = Math.floor(Date.now() / 1000);
    if (typeof iat !== 'number' || typeof exp !== 'number') return false;
    return String(iss) === String(app.id) && exp > now && iat <= now + 60 && exp - iat <= 600;
  } catch {
    return false;
  }
}
