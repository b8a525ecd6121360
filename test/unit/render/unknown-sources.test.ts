/**
 * substituteFrom and valuesFrom sources that only the cluster holds: taken as present with
 * unknown values. A variable no known source defines reads as a stable, DNS-label shaped
 * marker; Helm values from such a source are left out; Secret tracking of the sources that
 * are known stays as it was.
 */
import { describe, expect, it } from 'vitest';
import { HelmRelease } from '../../../src/render/helm/helm-release.js';
import { ValuesError, composeValues } from '../../../src/render/helm/values.js';
import {
  SubstitutionError,
  type VarSource,
  type VariableInput,
  collectVariables,
  substituteTracked,
  unknownSources,
  unknownValue,
} from '../../../src/render/builtin/substitute.js';

const secret = (name: string, optional = false): VarSource => ({ kind: 'Secret', name, optional });
const configMap = (name: string, optional = false): VarSource => ({
  kind: 'ConfigMap',
  name,
  optional,
});

/** A ConfigMap source that is there, an ExternalSecret's Secret that is not, and inline APP. */
const INPUT: VariableInput = {
  inline: { APP: 'web' },
  sources: [
    { ref: configMap('cluster-settings'), data: { REGION: 'eu-1' } },
    { ref: secret('cluster-secrets'), data: undefined },
    { ref: secret('optional-extras', true), data: undefined },
  ],
  assumeUnknown: true,
};

const config = (data: Record<string, unknown>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: '${APP}-config', namespace: 'apps' },
  data,
});

const ASSUMING = { strict: true, always: false, unknown: true };

function substituted(data: Record<string, unknown>, vars = collectVariables(INPUT)) {
  return substituteTracked(config(data), vars, ASSUMING, new Set());
}

describe('variables of a source only the cluster holds', () => {
  it('lists the required sources that are missing, not the optional ones', () => {
    expect(unknownSources(INPUT)).toEqual([secret('cluster-secrets')]);
  });

  it('lists none, and collecting fails as Flux does, unless asked to assume', () => {
    const strict = { ...INPUT, assumeUnknown: false };
    expect(unknownSources(strict)).toEqual([]);
    expect(() => collectVariables(strict)).toThrow(
      "substitute from 'Secret/cluster-secrets' error: not found",
    );
  });

  it('collects the variables of the sources that are known', () => {
    expect(collectVariables(INPUT)).toEqual({ REGION: 'eu-1', APP: 'web' });
  });

  it.each([
    ['a host name', 'app.${SECRET_DOMAIN}', 'app.unknown-secret-domain'],
    ['a known variable beside it', '${APP}.${SECRET_DOMAIN}', 'web.unknown-secret-domain'],
    ['a known source value', '${REGION}', 'eu-1'],
    ['an upper-case operator', '${SECRET_DOMAIN^^}', 'UNKNOWN-SECRET-DOMAIN'],
    ['a substring', '${SECRET_DOMAIN:0:7}', 'unknown'],
    ['a length', 'n${#DB_USER}', 'n15'],
    ['a replacement', '${SECRET_DOMAIN/-/.}', 'unknown.secret-domain'],
    ['a default, which the unknown value may well override', '${TIER:=gold}', 'unknown-tier'],
  ])('reads as a marker in %s', (_what, template, expected) => {
    expect(substituted({ value: template }).manifest['data']).toEqual({ value: expected });
  });

  it('gives the same marker every time, so unchanged objects diff as unchanged', () => {
    expect(substituted({ v: '${SECRET_DOMAIN}' })).toEqual(substituted({ v: '${SECRET_DOMAIN}' }));
    expect(unknownValue('SECRET_DOMAIN')).toBe('unknown-secret-domain');
  });

  it('substitutes even when no known source defines any variable', () => {
    const out = substituteTracked(config({ v: '${DOMAIN}' }), {}, ASSUMING, new Set());
    expect(out.manifest).toMatchObject({ data: { v: 'unknown-domain' } });
  });

  it('still fails strictly on an undefined variable when every source is known', () => {
    const known = { strict: true, always: false };
    expect(() =>
      substituteTracked(config({ v: '${SECRET_DOMAIN}' }), { APP: 'web' }, known, new Set()),
    ).toThrow(SubstitutionError);
  });

  it('gives no marker to a name no ConfigMap or Secret could define', () => {
    expect(() => substituted({ v: '${héllo}' })).toThrow(SubstitutionError);
  });

  it('keeps tracking a known Secret, and treats the public marker as no secret', () => {
    const input: VariableInput = {
      inline: undefined,
      sources: [
        { ref: secret('db'), data: { DB_PASSWORD: 'hunter2-hunter2', PIN: 'x7' } },
        { ref: secret('cluster-secrets'), data: undefined },
      ],
      assumeUnknown: true,
    };
    const out = substituteTracked(
      config({ password: '${DB_PASSWORD}', pin: '${PIN}', host: 'db.${SECRET_DOMAIN}' }),
      collectVariables(input),
      ASSUMING,
      new Set(['DB_PASSWORD', 'PIN']),
    );
    expect(out.manifest['data']).toEqual({
      password: 'hunter2-hunter2',
      pin: 'x7',
      host: 'db.unknown-secret-domain',
    });
    // Long values are hidden wherever they occur, short ones at their field.
    expect(out.secret).toEqual({
      texts: ['hunter2-hunter2'],
      fields: [{ path: ['data', 'pin'] }],
    });
  });
});

describe('Helm values from a source only the cluster holds', () => {
  const release = HelmRelease.parse({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: 'web', namespace: 'apps' },
    spec: {
      chart: { spec: { chart: 'web', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
      valuesFrom: [
        { kind: 'ConfigMap', name: 'web-values' },
        { kind: 'Secret', name: 'web-auth', valuesKey: 'password', targetPath: 'auth.password' },
        { kind: 'Secret', name: 'web-auth' },
        { kind: 'Secret', name: 'web-extra', optional: true },
      ],
      values: { message: 'from-spec' },
    },
  });
  const objects: Record<string, Record<string, string>> = {
    'ConfigMap/web-values': { 'values.yaml': 'greeting: hi\nauth:\n  user: admin\n' },
  };
  const lookup = (kind: string, _ns: string, name: string) => objects[`${kind}/${name}`];

  it('leaves them out, keeps every other value, and tells each missing object once', () => {
    const told: string[] = [];
    const values = composeValues(release, lookup, 'apps', { unknown: (s) => told.push(s) });
    expect(values).toEqual({ greeting: 'hi', auth: { user: 'admin' }, message: 'from-spec' });
    expect([...new Set(told)]).toEqual(['Secret apps/web-auth']);
  });

  it('fails as Flux does without being asked to assume', () => {
    expect(() => composeValues(release, lookup, 'apps')).toThrow(ValuesError);
  });

  it('still fails for a key missing from an object that is there', () => {
    const keyed = HelmRelease.parse({
      ...release,
      spec: {
        ...release.spec,
        valuesFrom: [{ kind: 'ConfigMap', name: 'web-values', valuesKey: 'nope' }],
      },
    });
    expect(() => composeValues(keyed, lookup, 'apps', { unknown: () => undefined })).toThrow(
      "could not resolve ConfigMap chart values reference 'apps/web-values' with key 'nope': key not found",
    );
  });
});
