/**
 * A Secret value copied into other objects (postBuild.substituteFrom) is hidden there too:
 * in strings, keys, field paths, text diffs and render errors, while a change of the value
 * still shows as a change.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Manifest, RenderError } from '../../../src/model/render.js';
import { diffClusters } from '../../../src/diff/index.js';
import {
  MIN_SECRET_VALUE_LENGTH,
  REDACTED,
  REDACTED_CHANGED,
  indexSecretValues,
  redactText,
} from '../../../src/redact/index.js';
import type { ClusterDiff } from '../../../src/model/index.js';
import {
  base64,
  cluster,
  configMap,
  diff,
  kustomization,
  rendered,
  secret,
} from '../diff/build-cluster.js';

const NO_EXTRAS = { labels: [], annotations: [], fields: [] };

/** 24 random characters: no 8 of them turn up anywhere by chance. */
function randomValue(): string {
  return randomBytes(18).toString('base64url');
}

function leakedSubstring(output: string, secrets: readonly string[]): string | undefined {
  for (const s of secrets) {
    for (let i = 0; i + MIN_SECRET_VALUE_LENGTH <= s.length; i++) {
      const piece = s.slice(i, i + MIN_SECRET_VALUE_LENGTH);
      if (output.includes(piece)) return piece;
    }
  }
  return undefined;
}

function certificate(password: string): Manifest {
  return {
    apiVersion: 'cert-manager.io/v1',
    kind: 'Certificate',
    metadata: { name: 'web', namespace: 'apps', annotations: { note: `pw=${password};` } },
    spec: {
      secretName: 'web-tls',
      dnsNames: [`${password}.example.com`, 'web.example.com'],
      keystores: { pkcs12: { create: true, password: `prefix-${password}-suffix` } },
    },
  };
}

function substituted(value: string): Manifest {
  return configMap('settings', {
    url: `postgres://web:${value}@db.example.com:5432/web`,
    [`key-${value}`]: 'a key made of the value',
    port: '5432',
  });
}

describe('Secret values substituted into other objects', () => {
  it('are hidden in every string, key, field path and text diff of the cluster diff', () => {
    const old = randomValue();
    const next = randomValue();
    const result = diff(
      [rendered(secret('vars', { stringData: { DB_PASSWORD: old } }))],
      [
        rendered(secret('vars', { data: { DB_PASSWORD: base64(next) } })),
        rendered(substituted(next)),
        rendered(certificate(next)),
      ],
    );
    const json = JSON.stringify(result);
    expect(leakedSubstring(json, [old, next, base64(old), base64(next)])).toBeUndefined();
    const settings = result.changes.find((c) => c.name === 'settings');
    expect(settings?.new?.['data']).toEqual({
      url: `postgres://web:${REDACTED}@db.example.com:5432/web`,
      [`key-${REDACTED}`]: 'a key made of the value',
      port: '5432',
    });
    expect(settings?.fields.map((f) => f.path)).toEqual([]);
    expect(settings?.diff).toContain(`key-${REDACTED}: a key made of the value`);
    const cert = result.changes.find((c) => c.kind === 'Certificate');
    expect(cert?.new?.['spec']).toMatchObject({
      dnsNames: [`${REDACTED}.example.com`, 'web.example.com'],
      keystores: { pkcs12: { password: `prefix-${REDACTED}-suffix` } },
    });
  });

  it('still reports a change of the value as a changed object, marked on the head side', () => {
    const old = randomValue();
    const next = randomValue();
    const result = diff(
      [rendered(secret('vars', { stringData: { DB_PASSWORD: old } })), rendered(substituted(old))],
      [
        rendered(secret('vars', { stringData: { DB_PASSWORD: next } })),
        rendered(substituted(next)),
      ],
    );
    const json = JSON.stringify(result);
    expect(leakedSubstring(json, [old, next])).toBeUndefined();
    const settings = result.changes.find((c) => c.name === 'settings');
    expect(settings?.status).toBe('changed');
    expect(settings?.fields).toContainEqual({ path: 'data.url', change: 'changed' });
    expect(settings?.diff).toContain(`-  url: postgres://web:${REDACTED}@db`);
    expect(settings?.diff).toContain(`+  url: postgres://web:${REDACTED_CHANGED}@db`);
    expect(result.changes.map((c) => c.name).sort()).toEqual(['settings', 'vars']);
  });

  it('keeps a key changed to another Secret value visible without leaking either', () => {
    const old = randomValue();
    const next = randomValue();
    const vars = secret('vars', { stringData: { A: old, B: next } });
    const result = diff(
      [rendered(vars), rendered(configMap('keys', { [old]: 'same' }))],
      [rendered(vars), rendered(configMap('keys', { [next]: 'same' }))],
    );
    expect(leakedSubstring(JSON.stringify(result), [old, next])).toBeUndefined();
    const keys = result.changes.find((c) => c.name === 'keys');
    expect(keys?.status).toBe('changed');
    expect(keys?.new?.['data']).toEqual({ [REDACTED_CHANGED]: 'same' });
  });

  it('hides a number that reads as a Secret value (substitution re-reads YAML)', () => {
    const pin = '73902561';
    const result = diff(
      [],
      [
        rendered(secret('vars', { stringData: { PIN: pin } })),
        rendered({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 's' },
          spec: { x: 73902561 },
        }),
      ],
    );
    expect(JSON.stringify(result)).not.toContain(pin);
  });

  it('hides the value with its newlines removed, as substitution writes it', () => {
    const lines = `${randomValue()}\n${randomValue()}\n`;
    const result = diff(
      [],
      [
        rendered(secret('vars', { stringData: { KEY: lines } })),
        rendered(configMap('flat', { key: lines.replaceAll('\n', '') })),
      ],
    );
    expect(leakedSubstring(JSON.stringify(result), lines.split('\n'))).toBeUndefined();
  });

  it('redacts render error messages of either side', () => {
    const value = randomValue();
    const vars = rendered(secret('vars', { stringData: { TOKEN: value } }));
    const error = (name: string): RenderError => ({
      producer: kustomization(name),
      message: `kustomize build failed: bad value "${value}" in patch`,
    });
    const both = [kustomization('fixed'), kustomization('broken')];
    const result: ClusterDiff = diffClusters(
      cluster([vars], [error('fixed')], both),
      cluster([vars], [error('broken')], both),
      { cluster: 'home', normalize: NO_EXTRAS },
    );
    expect(result.summary.errorsIntroduced.map((e) => e.message)).toEqual([
      `kustomize build failed: bad value "${REDACTED}" in patch`,
    ]);
    expect(result.summary.errorsFixed).toHaveLength(1);
    expect(JSON.stringify(result)).not.toContain(value.slice(0, 8));
  });

  it('leaves values shorter than 8 characters, and SOPS placeholders, alone elsewhere', () => {
    const result = diff(
      [],
      [
        rendered(secret('vars', { stringData: { PORT: '5432', USER: 'admin' } })),
        rendered({
          ...secret('sealed', { stringData: { KEY: 'ENC[AES256_GCM,data:abc]' } }),
          sops: { version: '3' },
        }),
        rendered(
          configMap('plain', { port: '5432', user: 'admin', key: 'ENC[AES256_GCM,data:abc]' }),
        ),
      ],
    );
    const plain = result.changes.find((c) => c.name === 'plain');
    expect(plain?.new?.['data']).toEqual({
      port: '5432',
      user: 'admin',
      key: 'ENC[AES256_GCM,data:abc]',
    });
  });
});

describe('keys of redacted manifests', () => {
  it('keeps a `__proto__` key of a Secret and of a ConfigMap as data', () => {
    const data = JSON.parse('{"__proto__": "aGVsbG8gd29ybGQ="}') as Record<string, string>;
    const result = diff([], [rendered(secret('odd', { data })), rendered(configMap('odd', data))]);
    for (const change of result.changes) {
      expect(Object.keys(change.new?.['data'] as object)).toEqual(['__proto__']);
    }
    expect(JSON.stringify(result)).not.toContain('aGVsbG8gd29ybGQ=');
  });
});

describe('redactText with known Secret values', () => {
  it('replaces the longest value, and overlapping ones as one marker', () => {
    const secrets = indexSecretValues(['abcdefgh', 'abcdefghijkl', 'ijklmnopqrst', 'short']);
    expect(redactText('x abcdefghijkl y', REDACTED, secrets)).toBe(`x ${REDACTED} y`);
    expect(redactText('abcdefghijklmnopqrst!', REDACTED, secrets)).toBe(`${REDACTED}!`);
    expect(redactText('abcdefghabcdefgh short', REDACTED, secrets)).toBe(`${REDACTED} short`);
    expect(redactText('abcdefg', REDACTED, secrets)).toBe('abcdefg');
  });

  it('finds nothing without values', () => {
    expect(redactText('abcdefghijkl')).toBe('abcdefghijkl');
  });
});
