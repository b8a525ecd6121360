import { describe, expect, it } from 'vitest';
import { PODINFO, evaluate, fired, obj, place, type Scenario } from './scenario.js';

const VALUE = 'hunter2-do-not-print';
const b64 = Buffer.from(VALUE).toString('base64');

function secret(
  data: Record<string, string>,
  extra: Record<string, unknown> = {},
  labels: Record<string, string> = {},
) {
  return obj('v1', 'Secret', 'db', 'web', { type: 'Opaque', data, ...extra }, { labels });
}
const sops = { sops: { age: [{ recipient: 'age1...' }], mac: 'ENC[...]' } };

describe('secrets in the clear', () => {
  it.each<[string, Scenario, string[]]>([
    [
      'flags a plain Secret added from a repository file',
      { base: [], head: [secret({ password: b64 })] },
      ['secret-in-clear'],
    ],
    [
      'flags a plain Secret given a new value',
      { base: [secret({ password: 'b2xk' })], head: [secret({ password: b64 })] },
      ['secret-in-clear'],
    ],
    [
      'flags stringData too',
      { base: [], head: [secret({}, { data: undefined, stringData: { password: VALUE } })] },
      ['secret-in-clear'],
    ],
    [
      'flags a Secret whose SOPS encryption is removed',
      { base: [secret({ password: 'ENC[x]' }, sops)], head: [secret({ password: b64 })] },
      ['secret-in-clear'],
    ],
    [
      'stays quiet for a SOPS-encrypted Secret',
      { base: [], head: [secret({ password: 'ENC[AES256_GCM,data:x]' }, sops)] },
      [],
    ],
    [
      'stays quiet when a plain Secret only changes a label',
      { base: [secret({ password: b64 })], head: [secret({ password: b64 }, {}, { team: 'a' })] },
      [],
    ],
    ['stays quiet for a Secret with no values', { base: [], head: [secret({})] }, []],
    [
      'stays quiet for a Secret a HelmRelease renders',
      { base: [], head: [place(secret({ password: b64 }), { producer: PODINFO })] },
      [],
    ],
    [
      'stays quiet for a Secret from another source',
      {
        base: [],
        head: [
          place(secret({ password: b64 }), {
            file: 'GitRepository/flux-system/shared:secrets/db.yaml',
          }),
        ],
      },
      [],
    ],
    [
      'stays quiet for a generated Secret with no source file',
      { base: [], head: [place(secret({ password: b64 }), { file: undefined })] },
      [],
    ],
    [
      'stays quiet when a plain Secret is removed',
      { base: [secret({ password: b64 })], head: [] },
      [],
    ],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'secrets')).toEqual(expected);
  });

  it('never prints a Secret value, in plain or base64', () => {
    const findings = evaluate({
      base: [],
      head: [secret({ password: b64 }, { stringData: { token: VALUE } })],
    });
    const text = JSON.stringify(findings);
    expect(findings.map((f) => f.rule)).toContain('secret-in-clear');
    expect(text).not.toContain(VALUE);
    expect(text).not.toContain(b64);
  });

  it('names the file and how many values it exposes', () => {
    const [finding] = evaluate({ base: [], head: [secret({ password: b64, user: b64 })] }).filter(
      (f) => f.rule === 'secret-in-clear',
    );
    expect(finding).toMatchObject({ level: 'danger', file: 'apps/secret-db.yaml' });
    expect(finding?.message).toContain('its 2 values can be read');
  });
});
