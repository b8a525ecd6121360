/**
 * FLUXLENS_REGISTRY_CONFIG: the operator's chart registry credentials, a Docker
 * config.json-style file, read once at startup. Its shape is model/'s RegistryCredentials,
 * which render asks for; the values never leave the class but through forHost.
 */
import { readFileSync, statSync } from 'node:fs';
import { inspect } from 'node:util';
import { z } from 'zod';
import { SetupError } from './errors.js';
import type { RegistryCredential, RegistryCredentials, RegistrySecret } from './model/index.js';

/**
 * The entries of FLUXLENS_REGISTRY_CONFIG by host. The values stay in a private field:
 * JSON (pino) and util.inspect show only the file and the hosts, so logging a config
 * cannot print a password.
 */
export class RegistryCredentialFile implements RegistryCredentials {
  readonly #byHost: ReadonlyMap<string, RegistryCredential>;

  constructor(
    readonly source: string,
    byHost: ReadonlyMap<string, RegistryCredential>,
  ) {
    this.#byHost = byHost;
  }

  get hosts(): readonly string[] {
    return [...this.#byHost.keys()].sort();
  }

  forHost(host: string): RegistryCredential | undefined {
    return this.#byHost.get(host.toLowerCase());
  }

  toJSON(): { source: string; hosts: readonly string[] } {
    return { source: this.source, hosts: this.hosts };
  }

  [inspect.custom](): string {
    return `RegistryCredentialFile(${this.source}: ${this.hosts.join(', ')})`;
  }
}

const MAX_REGISTRY_CONFIG_BYTES = 1024 * 1024;

const AuthEntry = z.looseObject({
  auth: z.string().optional(),
  username: z.string().optional(),
  password: z.string().optional(),
  identitytoken: z.string().optional(),
});

/** Docker's config.json; unknown fields (email, HttpHeaders, plugins) are ignored. */
const RegistryConfig = z.looseObject({
  auths: z.record(z.string(), AuthEntry).optional(),
  credsStore: z.string().optional(),
  credHelpers: z.record(z.string(), z.string()).optional(),
});

/** Reads and checks the file; every refusal names the file and the entry, never a value. */
export function readRegistryConfig(file: string): RegistryCredentialFile {
  const refuse = (why: string) =>
    new SetupError(`invalid environment: FLUXLENS_REGISTRY_CONFIG: ${file} ${why}`);
  let text: string;
  try {
    if (statSync(file).size > MAX_REGISTRY_CONFIG_BYTES) throw refuse('is larger than 1 MiB');
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof SetupError) throw err;
    throw refuse(`cannot be read (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON.parse's message quotes the text around the error, which may be a password.
    throw refuse('is not valid JSON');
  }
  const parsed = RegistryConfig.safeParse(json);
  if (!parsed.success) {
    const where = parsed.error.issues[0]?.path.map(String) ?? [];
    const field = where[0] === 'auths' && where.length > 1 ? `${entryName(where[1])}: ` : '';
    throw refuse(`is not a registry config file (${field}${where.at(-1) ?? 'the top level'})`);
  }
  const { auths = {}, credsStore, credHelpers = {} } = parsed.data;
  if (credsStore || Object.keys(credHelpers).length > 0) {
    throw refuse(
      'names a credential helper (credsStore or credHelpers); fluxlens runs none: write the credentials into auths',
    );
  }
  const byHost = new Map<string, RegistryCredential>();
  for (const [key, entry] of Object.entries(auths)) {
    const at = registryHost(key);
    if (!at) throw refuse(`has ${entryName(key)}, whose key is not a host or URL`);
    const secret = entrySecret(entry);
    if (typeof secret === 'string') throw refuse(`has ${entryName(key)}: ${secret}`);
    const seen = byHost.get(at.host);
    if (seen && JSON.stringify(seen.secret) !== JSON.stringify(secret)) {
      throw refuse(`has two entries with different credentials for ${at.host}`);
    }
    byHost.set(at.host, { ...at, plainHttp: at.plainHttp || (seen?.plainHttp ?? false), secret });
  }
  return new RegistryCredentialFile(`FLUXLENS_REGISTRY_CONFIG (${file})`, byHost);
}

/** A key as an error may show it: a plain host or URL, else only that there is one. */
function entryName(key: string | undefined): string {
  return key !== undefined && /^[a-z0-9.:/[\]_-]+$/i.test(key) ? `entry '${key}'` : 'an entry';
}

/**
 * Docker's keys: `host`, `host:port` or a URL (`https://host/v1/`), of which only the host
 * and port count. A key written `http://` also allows plain HTTP to that host.
 */
function registryHost(key: string): { host: string; plainHttp: boolean } | undefined {
  const m = /^(?:(https?):\/\/)?([^/?#@\s]+)(?:[/?#].*)?$/i.exec(key.trim());
  if (!m?.[2]) return undefined;
  const plainHttp = m[1]?.toLowerCase() === 'http';
  try {
    const url = new URL(`${plainHttp ? 'http' : 'https'}://${m[2]}`);
    return url.hostname ? { host: url.host, plainHttp } : undefined;
  } catch {
    return undefined;
  }
}

/** `identitytoken` wins, as in Docker; then `auth` (base64 of user:password); then the pair. */
function entrySecret(entry: z.infer<typeof AuthEntry>): RegistrySecret | string {
  if (entry.identitytoken) return { kind: 'identity-token', token: entry.identitytoken };
  if (entry.auth) {
    const plain = /^[A-Za-z0-9+/]+={0,2}$/.test(entry.auth)
      ? Buffer.from(entry.auth, 'base64').toString('utf8')
      : '';
    const colon = plain.indexOf(':');
    if (colon < 1) return 'its auth is not the base64 of user:password';
    return { kind: 'basic', username: plain.slice(0, colon), password: plain.slice(colon + 1) };
  }
  if (entry.username && entry.password !== undefined) {
    return { kind: 'basic', username: entry.username, password: entry.password };
  }
  return 'it holds no credentials (auth, username and password, or identitytoken)';
}
