/**
 * Nothing secret leaves the diff: Secret values become markers that still show which keys
 * were added, removed or changed, and credential-shaped strings are hidden in every object.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { redactChange } from '../../../src/diff/index.js';
import {
  REDACTED,
  REDACTED_CHANGED,
  hasSecretShape,
  redactManifest,
  redactText,
} from '../../../src/redact/index.js';
import type { ResourceChange } from '../../../src/model/index.js';
import { base64, configMap, deployment, diff, rendered, secret } from '../diff/build-cluster.js';

const PEM_BODY = 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj';
const pem = (kind = 'RSA ') =>
  `-----BEGIN ${kind}PRIVATE KEY-----\n${PEM_BODY}\nMoreKeyMaterial0123456789\n-----END ${kind}PRIVATE KEY-----\n`;
const GITHUB_TOKEN = `ghp_${'a1B2c3D4e5'.repeat(4).slice(0, 36)}`;
const GITHUB_PAT = `github_pat_11ABCDEFG0${'xY9_'.repeat(10)}`;
const AWS_KEY_ID = 'AKIAIOSFODNN7EXAMPL3';
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const JWT =
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U';

function secretChange(
  base: Parameters<typeof secret>[1],
  head: Parameters<typeof secret>[1],
): ResourceChange | undefined {
  return diff([rendered(secret('db', base))], [rendered(secret('db', head))]).changes[0];
}

function editedLines(change: ResourceChange | undefined): string[] {
  return (change?.diff ?? '').split('\n').filter((l) => /^[-+][^-+]/.test(l));
}

describe('Secret values in a diff', () => {
  it.each<[string, Parameters<typeof secret>[1], Parameters<typeof secret>[1], string[], string[]]>(
    [
      [
        'a changed value shows as changed on the head line',
        { data: { password: base64('hunter2hunter2') } },
        { data: { password: base64('correct horse') } },
        ['data.password changed'],
        [`-  password: ${REDACTED}`, `+  password: ${REDACTED_CHANGED}`],
      ],
      [
        'an added key shows as added',
        { data: { password: base64('hunter2hunter2') } },
        { data: { password: base64('hunter2hunter2'), token: base64('t0k3n-value') } },
        ['data.token added'],
        [`+  token: ${REDACTED}`],
      ],
      [
        'a removed key shows as removed',
        { stringData: { password: 'hunter2hunter2', token: 't0k3n-value' } },
        { stringData: { password: 'hunter2hunter2' } },
        ['stringData.token removed'],
        [`-  token: ${REDACTED}`],
      ],
      [
        'a stringData value that changed is compared by content',
        { stringData: { password: 'hunter2hunter2' } },
        { stringData: { password: 'hunter3hunter3' } },
        ['stringData.password changed'],
        [`-  password: ${REDACTED}`, `+  password: ${REDACTED_CHANGED}`],
      ],
      [
        'a value moved from data to stringData with new content is changed',
        { data: { password: base64('hunter2hunter2') } },
        { stringData: { password: 'hunter3hunter3' } },
        ['data removed', 'stringData added'],
        ['-data:', `-  password: ${REDACTED}`, '+stringData:', `+  password: ${REDACTED_CHANGED}`],
      ],
    ],
  )('%s', (_, base, head, fields, lines) => {
    const change = secretChange(base, head);
    expect(change?.fields.map((f) => `${f.path} ${f.change}`)).toEqual(fields);
    expect(editedLines(change)).toEqual(lines);
  });

  it.each<[string, Parameters<typeof secret>[1], Parameters<typeof secret>[1]]>([
    [
      'an identical value',
      { data: { a: base64('same-value') } },
      { data: { a: base64('same-value') } },
    ],
    [
      'the same value base64-encoded with a line break',
      { data: { a: base64('same-value-that-is-long') } },
      { data: { a: base64('same-value-that-is-long').replace(/(.{8})/, '$1\n') } },
    ],
  ])('reports no change for %s', (_, base, head) => {
    expect(secretChange(base, head)).toBeUndefined();
  });

  it('hides SOPS metadata and the last-applied annotation, which repeat the values', () => {
    const head: Manifest = {
      ...secret('db', { data: { a: base64('plain-secret-value') } }),
      sops: { mac: 'ENC[AES256_GCM,data:abc]', age: [{ enc: 'age-encrypted-key' }] },
      metadata: {
        name: 'db',
        namespace: 'apps',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration':
            '{"data":{"a":"cGxhaW4tc2VjcmV0LXZhbHVl"}}',
        },
      },
    };
    const text = JSON.stringify(diff([], [rendered(head)]));
    for (const leak of [
      'age-encrypted-key',
      'AES256_GCM',
      'cGxhaW4tc2VjcmV0LXZhbHVl',
      'plain-secret',
    ]) {
      expect(text).not.toContain(leak);
    }
  });

  it('never lets 8 characters of any Secret value into the cluster diff', () => {
    const value = fc.string({
      unit: fc.constantFrom(...'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'),
      minLength: 8,
      maxLength: 40,
    });
    const values = fc.dictionary(fc.constantFrom('password', 'token', 'api-key', 'tls.key'), value);
    const side = fc.record({ data: values, stringData: values });
    fc.assert(
      fc.property(side, side, fc.boolean(), (base, head, sameName) => {
        const encode = (s: {
          data: Record<string, string>;
          stringData: Record<string, string>;
        }) => ({
          data: Object.fromEntries(Object.entries(s.data).map(([k, v]) => [k, base64(v)])),
          stringData: s.stringData,
        });
        const result = diff(
          [rendered(secret('db', encode(base)))],
          [rendered(secret(sameName ? 'db' : 'db2', encode(head)))],
        );
        const text = JSON.stringify(result);
        const secrets = [base, head].flatMap((s) => [
          ...Object.values(s.data),
          ...Object.values(s.stringData),
          ...Object.values(s.data).map(base64),
        ]);
        for (const s of secrets) {
          for (let i = 0; i + 8 <= s.length; i++) expect(text).not.toContain(s.slice(i, i + 8));
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('credentials found by shape in any object', () => {
  it.each([
    ['an RSA private key', pem('RSA '), PEM_BODY],
    ['an OpenSSH private key', pem('OPENSSH '), PEM_BODY],
    ['a PKCS#8 private key', pem(''), PEM_BODY],
    [
      'a private key cut off before its END line',
      pem('EC ').split('-----END')[0] as string,
      PEM_BODY,
    ],
    ['a GitHub token', `token: ${GITHUB_TOKEN}`, GITHUB_TOKEN],
    ['a fine-grained GitHub token', `Authorization: Bearer ${GITHUB_PAT}`, GITHUB_PAT],
    ['an AWS access key id', `key=${AWS_KEY_ID}`, AWS_KEY_ID],
    [
      'an AWS secret key in a credentials file',
      `[default]\naws_secret_access_key = ${AWS_SECRET}\n`,
      AWS_SECRET,
    ],
    ['a JWT', `Bearer ${JWT}`, JWT.slice(0, 30)],
  ])('hides %s in a ConfigMap and its diff', (_, value, leak) => {
    const result = diff([], [rendered(configMap('c', { 'app.conf': value }))]);
    const text = JSON.stringify(result);
    expect(text).not.toContain(leak);
    expect(text).toContain(REDACTED);
  });

  it.each([
    [
      'a certificate, which is public',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
    ],
    ['a short ghp_ word', 'ghp_short'],
    ['a lone eyJ prefix', 'eyJ is how JSON starts in base64'],
    ['plain configuration', 'log_level = debug\nworkers = 4'],
  ])('leaves %s alone', (_, value) => {
    expect(hasSecretShape(value)).toBe(false);
    expect(redactText(value)).toBe(value);
  });

  it.each([
    ['an env var value', { env: [{ name: 'GITHUB_TOKEN', value: GITHUB_TOKEN }] }, GITHUB_TOKEN],
    [
      'an env var named as the AWS secret key',
      { env: [{ name: 'AWS_SECRET_ACCESS_KEY', value: 'x'.repeat(12) }] },
      'x'.repeat(12),
    ],
    ['a command argument', { args: ['--key', pem()] }, PEM_BODY],
  ])('hides a credential in %s of a container', (_, fields, leak) => {
    const d = deployment('web', [{ name: 'app', image: 'nginx', ...fields }]);
    const text = JSON.stringify(diff([], [rendered(d)]));
    expect(text).not.toContain(leak);
  });

  it('shows a replaced private key as changed, and an untouched one as unchanged', () => {
    const other = pem('EC ').replace(PEM_BODY, 'AnotherKeyBody0123456789abcdef');
    const base = configMap('tls', { 'tls.key': pem(), 'ca.key': pem('EC '), mode: 'a' });
    const head = configMap('tls', { 'tls.key': other, 'ca.key': pem('EC '), mode: 'b' });
    const [change] = diff([rendered(base)], [rendered(head)]).changes;
    expect(change?.fields.map((f) => f.path)).toEqual(['data.mode', 'data["tls.key"]']);
    expect(editedLines(change)).toEqual([
      '-  mode: a',
      '+  mode: b',
      `-    ${REDACTED}`,
      `+    ${REDACTED_CHANGED}`,
    ]);
  });
});

describe('redaction helpers for other steps', () => {
  it('redactManifest hides every Secret value and keeps the keys', () => {
    const m = redactManifest(secret('db', { data: { a: base64('v1') }, stringData: { b: 'v2' } }));
    expect(m).toMatchObject({ data: { a: REDACTED }, stringData: { b: REDACTED } });
  });

  it('redactChange makes a raw Secret change safe, diff included, and leaves a redacted one as it was', () => {
    const old = secret('db', { stringData: { password: 'hunter2hunter2' } });
    const next = secret('db', { stringData: { password: 'hunter3hunter3' } });
    const raw: ResourceChange = {
      id: '/Secret/apps/db',
      status: 'changed',
      contentChanged: true,
      cluster: 'home',
      apiVersion: 'v1',
      kind: 'Secret',
      namespace: 'apps',
      name: 'db',
      producer: { kind: 'Kustomization', namespace: 'flux-system', name: 'apps' },
      old,
      new: next,
      fields: [{ path: 'stringData.password', change: 'changed' }],
      diff: '-  password: hunter2hunter2\n+  password: hunter3hunter3\n',
    };
    const safe = redactChange(raw);
    expect(JSON.stringify(safe)).not.toMatch(/hunter/);
    expect(safe.new).toMatchObject({ stringData: { password: REDACTED_CHANGED } });
    expect(safe.diff).toContain(`+  password: ${REDACTED_CHANGED}`);

    const fromDiff = diff([rendered(old)], [rendered(next)]).changes[0] as ResourceChange;
    expect(redactChange(fromDiff)).toEqual(fromDiff);
  });
});
