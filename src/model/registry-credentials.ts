/**
 * Chart registry credentials as render/ uses them and src/registry-config.ts reads them from
 * the operator's file (FLUXLENS_REGISTRY_CONFIG).
 */

/** What a registry credentials file entry holds: a login, or an OAuth2 refresh token. */
export type RegistrySecret =
  | { kind: 'basic'; username: string; password: string }
  | { kind: 'identity-token'; token: string };

export interface RegistryCredential {
  /** `host` or `host:port` as URL.host writes it (lower case, no default port). */
  host: string;
  /** The entry was written `http://HOST`: it may also travel over plain HTTP. */
  plainHttp: boolean;
  secret: RegistrySecret;
}

/**
 * Credentials by host, read from the operator's file at startup (see
 * render/helm/chart/registry-credentials.ts for where they may go). An implementation keeps
 * the values out of JSON and inspection: only the hosts may be shown.
 */
export interface RegistryCredentials {
  /** Hosts with an entry, sorted. */
  readonly hosts: readonly string[];
  forHost(host: string): RegistryCredential | undefined;
}
