/**
 * Where the operator's registry credentials (FLUXLENS_REGISTRY_CONFIG) may go. A request
 * carries the credentials of its own host (host and port) when the file has an entry for
 * it, and never any other host's: a redirect, or an OCI token service on another host, is
 * a request to that host, which gets its own entry's credentials or none. Credentials
 * travel over plain HTTP only to an entry written `http://HOST`, or to a loopback
 * address, where nobody else on the network can read them. Nothing here logs, and the
 * notes for messages name hosts, never values.
 */
import type { RegistryCredential } from '../../../model/index.js';
import type { ChartNetwork } from '../../settings.js';

export type CredentialUse =
  | { kind: 'send'; credential: RegistryCredential }
  /** The host has an entry, but the request would carry it over plain HTTP. */
  | { kind: 'withheld'; host: string }
  | { kind: 'none' };

export function credentialFor(url: URL, network: ChartNetwork | undefined): CredentialUse {
  const credential = network?.credentials?.forHost(url.host);
  if (!credential) return { kind: 'none' };
  if (url.protocol === 'https:' || credential.plainHttp || isLoopbackHost(url.hostname)) {
    return { kind: 'send', credential };
  }
  return { kind: 'withheld', host: url.host };
}

/** `Basic ...` for a login; an identity token only ever goes to an OCI token service. */
export function basicAuthorization(credential: RegistryCredential): string | undefined {
  const { secret } = credential;
  if (secret.kind !== 'basic') return undefined;
  return `Basic ${Buffer.from(`${secret.username}:${secret.password}`).toString('base64')}`;
}

/** The Authorization header a plain request to `url` carries: its own host's login, if any. */
export function ownAuthorization(url: URL, network: ChartNetwork | undefined): string | undefined {
  const use = credentialFor(url, network);
  return use.kind === 'send' ? basicAuthorization(use.credential) : undefined;
}

/** What a message about a refused or failed request to `url` adds, naming hosts only. */
export function credentialNote(
  url: URL,
  network: ChartNetwork | undefined,
  sent: boolean,
): string | undefined {
  // The variable, not the file: messages reach pull requests, the operator's paths need not.
  const source = 'FLUXLENS_REGISTRY_CONFIG';
  if (sent) return `credentials for ${url.host} from ${source} were sent`;
  const use = credentialFor(url, network);
  if (use.kind === 'withheld') {
    return `credentials for ${use.host} were not sent over plain http (an entry written http://${use.host} allows it)`;
  }
  if (network?.credentials && use.kind === 'none') return `${source} has no entry for ${url.host}`;
  return undefined;
}

/** Loopback names and addresses: registries there speak plain HTTP and nobody else listens. */
export function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
    hostname === '[::1]'
  );
}

/**
 * The values a message must never contain for these credentials: passwords, tokens and
 * the base64 form a Basic header carries. Usernames are not secret and stay readable.
 */
export function secretValues(credentials: readonly RegistryCredential[]): string[] {
  return credentials.flatMap(({ secret }) =>
    secret.kind === 'basic'
      ? [secret.password, Buffer.from(`${secret.username}:${secret.password}`).toString('base64')]
      : [secret.token],
  );
}

/** `text` with every one of `secrets` replaced: for what a server or a tool said. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of [...secrets].sort((a, b) => b.length - a.length)) {
    if (value !== '') out = out.split(value).join('<credential>');
  }
  return out;
}
