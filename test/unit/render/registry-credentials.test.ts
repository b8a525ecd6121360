/**
 * Where the operator's registry credentials may go, request by request: to their own host
 * and port only, over plain HTTP only where the operator wrote http:// or the host is
 * loopback; how a registry's challenge is read; and how a server's words are cleaned of
 * credential values before they reach a message.
 */
import { describe, expect, it } from 'vitest';
import type { RegistryCredential } from '../../../src/model/index.js';
import { DEFAULT_CHART_NETWORK, type ChartNetwork } from '../../../src/render/index.js';
import {
  credentialFor,
  credentialNote,
  ownAuthorization,
  secretValues,
  withoutSecrets,
} from '../../../src/render/helm/chart/registry-credentials.js';
import { parseChallenge } from '../../../src/render/helm/chart/registry-token.js';

const entries: RegistryCredential[] = [
  {
    host: 'charts.example.com',
    plainHttp: false,
    secret: { kind: 'basic', username: 'ci', password: 'pw-Zq9x7' },
  },
  {
    host: 'registry.lan:5000',
    plainHttp: true,
    secret: { kind: 'basic', username: 'lab', password: 'lab-Zq9x7' },
  },
  {
    host: 'acr.example.io',
    plainHttp: false,
    secret: { kind: 'identity-token', token: 'rt-Zq9x7' },
  },
  {
    host: 'localhost:5001',
    plainHttp: false,
    secret: { kind: 'basic', username: 'kind', password: 'kind-Zq9x7' },
  },
];

const network: ChartNetwork = {
  ...DEFAULT_CHART_NETWORK,
  credentials: {
    hosts: entries.map((e) => e.host),
    forHost: (host) => entries.find((e) => e.host === host),
  },
};

describe('which request carries which credentials', () => {
  it.each([
    ['https://charts.example.com/index.yaml', 'send charts.example.com'],
    ['https://charts.example.com:443/index.yaml', 'send charts.example.com'],
    ['https://CHARTS.example.com/a.tgz', 'send charts.example.com'],
    ['https://charts.example.com:8443/index.yaml', 'none'],
    ['https://cdn.charts.example.com/a.tgz', 'none'],
    ['https://example.com/a.tgz', 'none'],
    ['http://charts.example.com/index.yaml', 'withheld'],
    ['http://registry.lan:5000/v2/', 'send registry.lan:5000'],
    ['https://registry.lan:5000/v2/', 'send registry.lan:5000'],
    ['http://registry.lan/v2/', 'none'],
    ['http://localhost:5001/v2/', 'send localhost:5001'],
  ])('%s: %s', (url, expected) => {
    const use = credentialFor(new URL(url), network);
    const shown = use.kind === 'send' ? `send ${use.credential.host}` : use.kind;
    expect(shown).toBe(expected);
  });

  it('carries nothing at all when the operator gave no file', () => {
    expect(credentialFor(new URL('https://charts.example.com/'), DEFAULT_CHART_NETWORK)).toEqual({
      kind: 'none',
    });
  });

  it('sends a login as Basic, and never an identity token outside the token dance', () => {
    expect(ownAuthorization(new URL('https://charts.example.com/x'), network)).toBe(
      `Basic ${Buffer.from('ci:pw-Zq9x7').toString('base64')}`,
    );
    expect(ownAuthorization(new URL('https://acr.example.io/x'), network)).toBeUndefined();
  });
});

describe('what a failed request says about credentials', () => {
  it.each([
    [
      'https://charts.example.com/i',
      true,
      'credentials for charts.example.com from FLUXLENS_REGISTRY_CONFIG were sent',
    ],
    [
      'http://charts.example.com/i',
      false,
      'credentials for charts.example.com were not sent over plain http (an entry written http://charts.example.com allows it)',
    ],
    [
      'https://other.example.com/i',
      false,
      'FLUXLENS_REGISTRY_CONFIG has no entry for other.example.com',
    ],
  ])('%s (sent: %s)', (url, sent, note) => {
    expect(credentialNote(new URL(url), network, sent)).toBe(note);
  });

  it('says nothing when no file was given', () => {
    expect(credentialNote(new URL('https://x.example.com/'), DEFAULT_CHART_NETWORK, false)).toBe(
      undefined,
    );
  });
});

describe('a registry challenge', () => {
  it.each([
    ['Basic realm="registry"', { scheme: 'basic' }],
    [
      'Bearer realm="https://auth.example.io/token",service="registry.example.io",scope="repository:charts/app:pull"',
      {
        scheme: 'bearer',
        realm: 'https://auth.example.io/token',
        service: 'registry.example.io',
        scope: 'repository:charts/app:pull',
      },
    ],
    [
      'bearer REALM=https://auth.example.io/token',
      { scheme: 'bearer', realm: 'https://auth.example.io/token' },
    ],
    ['Bearer service="x"', undefined],
    ['Negotiate abc', undefined],
    [undefined, undefined],
  ])('%s', (header, expected) => {
    expect(parseChallenge(header)).toEqual(expected);
  });
});

describe('cleaning what a server or a tool said', () => {
  it('hides passwords, tokens and Basic headers, longest first, and keeps usernames', () => {
    const secrets = secretValues(entries);
    const basic = Buffer.from('ci:pw-Zq9x7').toString('base64');
    const text = `denied ci with pw-Zq9x7 (Basic ${basic}); refresh rt-Zq9x7`;
    expect(withoutSecrets(text, secrets)).toBe(
      'denied ci with <credential> (Basic <credential>); refresh <credential>',
    );
  });
});
