/**
 * The OCI distribution token dance, done by fluxlens rather than helm so that it decides
 * who gets credentials: a registry that answers 401 with `Bearer realm=...` names a token
 * service, which is asked for a pull token for one repository. The token service gets its
 * own host's entry from the operator's file (a login over GET with Basic, or an identity
 * token as an OAuth2 refresh token over POST), or nothing: a realm on another host never
 * receives the registry's credentials, only ones the operator listed for that realm.
 */
import { z } from 'zod';
import { ChartUnavailableError } from './chart-unavailable-error.js';
import { describeUrl, fetchChartResponse, httpUrl, type FetchLimits } from './chart-fetch.js';
import { credentialFor, credentialNote } from './registry-credentials.js';

export type Challenge =
  | { scheme: 'basic' }
  | { scheme: 'bearer'; realm: string; service?: string; scope?: string };

/** The first Basic or Bearer challenge of a WWW-Authenticate header. */
export function parseChallenge(header: string | string[] | undefined): Challenge | undefined {
  for (const value of typeof header === 'string' ? [header] : (header ?? [])) {
    const scheme = /^\s*(\w+)/.exec(value)?.[1]?.toLowerCase();
    if (scheme === 'basic') return { scheme };
    if (scheme !== 'bearer') continue;
    const params = new Map<string, string>();
    for (const m of value.matchAll(/(\w+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
      params.set((m[1] ?? '').toLowerCase(), (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1'));
    }
    const realm = params.get('realm');
    if (!realm) continue;
    const service = params.get('service');
    const scope = params.get('scope');
    return {
      scheme,
      realm,
      ...(service !== undefined ? { service } : {}),
      ...(scope !== undefined ? { scope } : {}),
    };
  }
  return undefined;
}

/** Docker's `token`, or OAuth2's `access_token`; the rest (expiry, refresh token) unused. */
const TokenResponse = z.looseObject({
  token: z.string().min(1).optional(),
  access_token: z.string().min(1).optional(),
});

const MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;

export interface TokenRequest {
  challenge: Extract<Challenge, { scheme: 'bearer' }>;
  /** The repository the pull reads, for the default scope `repository:NAME:pull`. */
  repository: string;
  what: string;
}

export interface Token {
  value: string;
  /** Whether the token service was sent credentials of its own host. */
  authenticated: boolean;
  /** For messages when the pull fails: why the token service got no credentials. */
  note?: string;
}

export async function fetchRegistryToken(req: TokenRequest, limits: FetchLimits): Promise<Token> {
  const { challenge, what } = req;
  const realm = httpUrl(challenge.realm, `${what}: token service`);
  const scope = challenge.scope ?? `repository:${req.repository}:pull`;
  const use = credentialFor(realm, limits.network);
  const fetchLimits = { ...limits, maxBytes: MAX_TOKEN_RESPONSE_BYTES };
  let response;
  if (use.kind === 'send' && use.credential.secret.kind === 'identity-token') {
    const form = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: use.credential.secret.token,
      client_id: 'fluxlens',
      scope,
      ...(challenge.service !== undefined ? { service: challenge.service } : {}),
    });
    response = await fetchChartResponse(realm, fetchLimits, what, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form.toString(),
      authorize: () => undefined,
    });
  } else {
    const url = new URL(realm);
    if (challenge.service !== undefined) url.searchParams.set('service', challenge.service);
    url.searchParams.set('scope', scope);
    response = await fetchChartResponse(url, fetchLimits, what);
  }
  const sent = use.kind === 'send';
  if (response.status < 200 || response.status > 299) {
    const note = credentialNote(realm, limits.network, sent);
    throw new ChartUnavailableError(
      `${what}: the token service ${describeUrl(realm)} answered HTTP ${response.status}${note ? ` (${note})` : ''}`,
    );
  }
  const parsed = TokenResponse.safeParse(safeJson(response.body.toString('utf8')));
  const value = parsed.success ? (parsed.data.token ?? parsed.data.access_token) : undefined;
  if (value === undefined) {
    throw new ChartUnavailableError(
      `${what}: the token service ${describeUrl(realm)} answered without a token`,
    );
  }
  const note =
    use.kind === 'none'
      ? `the token service ${realm.host} has no entry in FLUXLENS_REGISTRY_CONFIG, so it was asked without credentials`
      : credentialNote(realm, limits.network, sent);
  return { value, authenticated: sent, ...(note !== undefined ? { note } : {}) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
