import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { sopsPlaceholder } from '../../../src/model/config-data.js';
import { HelmRelease } from '../../../src/render/helm/helm-release.js';
import {
  type ConfigLookup,
  ValuesError,
  chartDefaultValues,
  composeValues,
} from '../../../src/render/helm/values.js';

type Values = Record<string, unknown>;
/** ConfigMap and Secret data in the release's namespace, keyed `Kind/name`. */
type Objects = Record<string, Record<string, string>>;

/** YAML as written in a repository; backslashes stay as typed. */
function y(strings: TemplateStringsArray, ...args: unknown[]): Values {
  return parse(String.raw(strings, ...args)) as Values;
}

function release(spec: Values, namespace: string | null = 'podinfo'): HelmRelease {
  return HelmRelease.parse({
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: 'podinfo', ...(namespace === null ? {} : { namespace }) },
    spec: {
      chart: { spec: { chart: 'podinfo', sourceRef: { kind: 'HelmRepository', name: 'podinfo' } } },
      ...spec,
    },
  });
}

function lookupIn(objects: Objects): ConfigLookup {
  return (kind, namespace, name) =>
    namespace === 'podinfo' ? objects[`${kind}/${name}`] : undefined;
}

function compose(spec: Values, objects: Objects = {}): Values {
  return composeValues(release(spec), lookupIn(objects));
}

function composeError(spec: Values, objects: Objects = {}): ValuesError {
  try {
    compose(spec, objects);
  } catch (error) {
    expect(error).toBeInstanceOf(ValuesError);
    return error as ValuesError;
  }
  throw new Error('expected a ValuesError');
}

// flux-local's testdata/cluster8: the podinfo values ConfigMap and the decoded TLS Secret.
const CLUSTER8: Objects = {
  'ConfigMap/podinfo-values': {
    'values.yaml': [
      'redis:',
      '  repository: public.ecr.aws/docker/library/redis',
      '  tag: 7.0.5',
      'ingress:',
      '  enabled: true',
      '  className: nginx',
      '  hosts:',
      '    - host: podinfo.production',
    ].join('\n'),
    'empty-values.yaml': '',
    'patch-values.yaml': 'redis:\n  tag: 7.0.6',
  },
  'Secret/podinfo-tls-values': { crt: 'value-2\r\n\r\n' },
};

describe('composeValues', () => {
  it('composes the cluster8 podinfo release as Flux does, leaving missing optional Secrets out', () => {
    const spec = y`
      values: { redis: { enabled: true } }
      valuesFrom:
        - { kind: ConfigMap, name: podinfo-values }
        - { kind: ConfigMap, name: podinfo-values, valuesKey: empty-values.yaml }
        - { kind: ConfigMap, name: podinfo-values, valuesKey: patch-values.yaml }
        - kind: Secret
          name: dot-notated-target-path
          valuesKey: key
          targetPath: ingress.annotations.azure\.workload\.identity/client-id
          optional: true
        - { kind: Secret, name: podinfo-tls-values, valuesKey: crt, targetPath: tls.crt, optional: true }`;
    // flux-local puts placeholders at the missing optional Secret's path and for every Secret
    // value; Flux skips the missing reference and uses the Secret's data.
    expect(compose(spec, CLUSTER8)).toEqual(y`
      redis: { enabled: true, repository: public.ecr.aws/docker/library/redis, tag: 7.0.6 }
      ingress: { enabled: true, className: nginx, hosts: [{ host: podinfo.production }] }
      tls: { crt: "value-2\r\n\r\n" }`);
  });

  describe('order and precedence', () => {
    it.each<[string, Values, Objects, Values]>([
      [
        'lets a later reference win over an earlier one',
        y`valuesFrom: [{ kind: ConfigMap, name: podinfo-values }, { kind: Secret, name: redis-pin }]`,
        { ...CLUSTER8, 'Secret/redis-pin': { 'values.yaml': 'redis: { tag: 7.2.4 }' } },
        y`
          redis: { repository: public.ecr.aws/docker/library/redis, tag: 7.2.4 }
          ingress: { enabled: true, className: nginx, hosts: [{ host: podinfo.production }] }`,
      ],
      [
        'reads values.yaml when valuesKey is not set',
        y`valuesFrom: [{ kind: Secret, name: redis-pin }]`,
        { 'Secret/redis-pin': { 'values.yaml': 'redis: { tag: 7.2.4 }', other: 'redis: {}' } },
        y`redis: { tag: 7.2.4 }`,
      ],
      [
        'merges spec.values over every reference',
        y`
          values: { redis: { tag: 7.0.4 }, replicaCount: 2 }
          valuesFrom: [{ kind: ConfigMap, name: podinfo-values, valuesKey: patch-values.yaml }]`,
        CLUSTER8,
        y`{ redis: { tag: 7.0.4 }, replicaCount: 2 }`,
      ],
      [
        'replaces lists instead of merging them',
        y`
          values: { ingress: { hosts: [podinfo.staging] } }
          valuesFrom: [{ kind: ConfigMap, name: base }]`,
        { 'ConfigMap/base': { 'values.yaml': 'ingress: { enabled: true, hosts: [a, b] }' } },
        y`ingress: { enabled: true, hosts: [podinfo.staging] }`,
      ],
      [
        'replaces a map with a scalar and a scalar with a map',
        y`
          values: { redis: false, ingress: { enabled: { class: nginx } } }
          valuesFrom: [{ kind: ConfigMap, name: base }]`,
        {
          'ConfigMap/base': { 'values.yaml': 'redis: { tag: 7.0.5 }\ningress: { enabled: true }' },
        },
        y`{ redis: false, ingress: { enabled: { class: nginx } } }`,
      ],
      [
        'lets spec.values beat a targetPath at the top level',
        y`
          values: { replicaCount: 1 }
          valuesFrom: [{ kind: ConfigMap, name: scaling, valuesKey: replicas, targetPath: replicaCount }]`,
        { 'ConfigMap/scaling': { replicas: '3' } },
        y`replicaCount: 1`,
      ],
      [
        'lets a targetPath beat spec.values when only spec.values supplies its parent map',
        y`
          values: { ingress: { annotations: { owner: web } } }
          valuesFrom:
            - { kind: Secret, name: owner, valuesKey: team, targetPath: ingress.annotations.owner }`,
        { 'Secret/owner': { team: 'sre' } },
        y`ingress: { annotations: { owner: sre } }`,
      ],
      [
        'lets spec.values win when an earlier whole-file reference also supplies the parent map',
        y`
          values: { ingress: { annotations: { owner: web } } }
          valuesFrom:
            - { kind: ConfigMap, name: base }
            - { kind: Secret, name: owner, valuesKey: team, targetPath: ingress.annotations.owner }`,
        {
          'ConfigMap/base': { 'values.yaml': 'ingress: { annotations: { tier: frontend } }' },
          'Secret/owner': { team: 'sre' },
        },
        y`ingress: { annotations: { tier: frontend, owner: web } }`,
      ],
      [
        // fluxcd/pkg chartutil's own "target path precedence over all" case.
        'keeps a targetPath list item over a later whole-file list',
        y`
          values: { nested: { configuration: [list, item, option] } }
          valuesFrom:
            - { kind: Secret, name: values, valuesKey: key, targetPath: "nested.configuration[0]" }
            - { kind: ConfigMap, name: values }`,
        {
          'Secret/values': { key: 'value' },
          'ConfigMap/values': { 'values.yaml': 'flat: value\nnested: { configuration: [1, 2] }' },
        },
        y`{ flat: value, nested: { configuration: [value, item, option] } }`,
      ],
      [
        'lets a later whole-file reference override an earlier targetPath',
        y`
          valuesFrom:
            - { kind: Secret, name: owner, valuesKey: team, targetPath: ingress.annotations.owner }
            - { kind: ConfigMap, name: base }`,
        {
          'ConfigMap/base': { 'values.yaml': 'ingress: { annotations: { owner: platform } }' },
          'Secret/owner': { team: 'sre' },
        },
        y`ingress: { annotations: { owner: platform } }`,
      ],
      [
        'sets a targetPath inside a list from an earlier reference',
        y`
          values: { other: values }
          valuesFrom:
            - { kind: ConfigMap, name: values }
            - { kind: Secret, name: values, targetPath: "nested.configuration[1]" }`,
        {
          'ConfigMap/values': { 'values.yaml': 'nested: { configuration: [list, item, option] }' },
          'Secret/values': { 'values.yaml': 'foo' },
        },
        y`{ nested: { configuration: [list, foo, option] }, other: values }`,
      ],
      [
        'reads an empty values key as no values',
        y`valuesFrom: [{ kind: ConfigMap, name: podinfo-values, valuesKey: empty-values.yaml }]`,
        CLUSTER8,
        {},
      ],
      [
        'skips an optional reference whose object is missing',
        y`valuesFrom: [{ kind: Secret, name: oauth, targetPath: oauth.clientId, optional: true }]`,
        {},
        {},
      ],
      [
        'skips an optional reference whose key is missing',
        y`valuesFrom: [{ kind: ConfigMap, name: podinfo-values, valuesKey: prod.yaml, optional: true }]`,
        CLUSTER8,
        {},
      ],
    ])('%s', (_behaviour, spec, objects, expected) => {
      expect(compose(spec, objects)).toEqual(expected);
    });
  });

  describe('targetPath', () => {
    it.each<[string, string, string, Values, boolean?]>([
      [
        'keeps escaped dots inside a key',
        'ingress.annotations.azure\\.workload\\.identity/client-id',
        'c0ffee-id',
        y`ingress: { annotations: { azure.workload.identity/client-id: c0ffee-id } }`,
      ],
      ['types true as a boolean', 'feature.enabled', 'true', y`feature: { enabled: true }`],
      ['types an integer as a number', 'replicaCount', '3', y`replicaCount: 3`],
      ['types null as null', 'resources', 'null', y`resources: null`],
      ['keeps a decimal a string', 'ratio', '1.5', y`ratio: "1.5"`],
      ['keeps a double-quoted value a string', 'feature.on', '"true"', y`feature: { on: "true" }`],
      ['keeps a single-quoted value a string', 'port', "'8080'", y`port: "8080"`],
      ['sets a list item by index', 'hosts[1]', 'b.example', y`hosts: [null, b.example]`],
      ['reads {a,b} as a list', 'ingress.tls', '{a,b}', y`ingress: { tls: [a, b] }`],
      ['unescapes an escaped comma', 'name', 'value1\\,value2', y`name: "value1,value2"`],
      ['keeps line breaks of a Secret value', 'tls.crt', 'a\r\n\r\n', y`tls: { crt: "a\r\n\r\n" }`],
      [
        'keeps a literal value verbatim',
        'kafka.brokers',
        'kafka01.net:9092,kafka02.net:9092',
        y`kafka: { brokers: "kafka01.net:9092,kafka02.net:9092" }`,
        true,
      ],
      [
        'keeps {, [ and \\ in a literal value',
        'config',
        '{a,[b]}\\n',
        y`config: '{a,[b]}\n'`,
        true,
      ],
      ['keeps a literal true a string', 'feature.on', 'true', y`feature: { on: "true" }`, true],
    ])('%s', (_behaviour, targetPath, text, expected, literal) => {
      const ref = { kind: 'Secret', name: 'app', valuesKey: 'value', targetPath, literal };
      expect(compose({ valuesFrom: [ref] }, { 'Secret/app': { value: text } })).toEqual(expected);
    });
  });

  describe('errors', () => {
    it.each<[string, Values, Objects, RegExp]>([
      [
        'a missing ConfigMap',
        y`valuesFrom: [{ kind: ConfigMap, name: podinfo-values }]`,
        {},
        /^could not resolve ConfigMap chart values reference 'podinfo\/podinfo-values' with key 'values.yaml': resource not found$/,
      ],
      [
        'a missing Secret key',
        y`valuesFrom: [{ kind: Secret, name: podinfo-tls-values, valuesKey: key }]`,
        CLUSTER8,
        /^could not resolve Secret chart values reference 'podinfo\/podinfo-tls-values' with key 'key': key not found$/,
      ],
      [
        'invalid YAML',
        y`valuesFrom: [{ kind: ConfigMap, name: broken }]`,
        { 'ConfigMap/broken': { 'values.yaml': 'redis:\n  tag: [7.0.5\n' } },
        /'podinfo\/broken' with key 'values.yaml': the value is not valid YAML \(\w+ at line \d+, column \d+\)$/,
      ],
      [
        'YAML that is not a mapping',
        y`valuesFrom: [{ kind: ConfigMap, name: broken }]`,
        { 'ConfigMap/broken': { 'values.yaml': '- redis\n' } },
        /the value is not valid YAML \(not a mapping\)$/,
      ],
      [
        'invalid YAML behind an optional reference',
        y`valuesFrom: [{ kind: ConfigMap, name: broken, optional: true }]`,
        { 'ConfigMap/broken': { 'values.yaml': 'invalid' } },
        /^could not resolve optional ConfigMap chart values reference .* not valid YAML/,
      ],
      [
        'a comma-separated value at a targetPath without literal',
        y`valuesFrom: [{ kind: Secret, name: kafka, valuesKey: brokers, targetPath: kafka.brokers }]`,
        { 'Secret/kafka': { brokers: 'kafka01.net:9092,kafka02.net:9092' } },
        /failed to merge value at targetPath 'kafka.brokers': key has no value$/,
      ],
      [
        'a targetPath through a scalar',
        y`
          values: { ingress: disabled }
          valuesFrom:
            - { kind: Secret, name: owner, valuesKey: team, targetPath: ingress.annotations.owner }`,
        { 'Secret/owner': { team: 'sre' } },
        /targetPath 'ingress.annotations.owner': existing value is not a map or list$/,
      ],
      [
        // flux-local renders it; the CRD's pattern allows neither `=` nor a non-numeric `[...]`.
        'a targetPath the HelmRelease CRD refuses (cluster8 escape-special-chars-path)',
        y`
          valuesFrom:
            - kind: Secret
              name: escape-special-chars-path
              valuesKey: key
              targetPath: service.annotations.app\.kubernetes\.io/name\=\[backend]
              optional: true`,
        {},
        /^spec.valuesFrom\[0\].targetPath .* fails the HelmRelease CRD validation .* rejects this HelmRelease$/,
      ],
      [
        'a valuesKey the HelmRelease CRD refuses',
        y`valuesFrom: [{ kind: ConfigMap, name: podinfo-values, valuesKey: values/prod.yaml }]`,
        CLUSTER8,
        /^spec.valuesFrom\[0\].valuesKey 'values\/prod.yaml' fails the HelmRelease CRD validation/,
      ],
    ])('reports %s', (_behaviour, spec, objects, message) => {
      expect(composeError(spec, objects).message).toMatch(message);
    });

    it.each<[string, Values, string]>([
      ['invalid YAML', y`{ kind: Secret, name: db }`, 'password: hunter2\n  bad: ['],
      [
        'a value breaking --set syntax',
        y`{ kind: Secret, name: db, targetPath: db.pw }`,
        'hunter2,x',
      ],
    ])('keeps Secret content out of the message for %s', (_behaviour, ref, text) => {
      const error = composeError({ valuesFrom: [ref] }, { 'Secret/db': { 'values.yaml': text } });
      expect(error.message).not.toContain('hunter');
      expect(error.code).toBe('invalid-content');
    });
  });

  it('reads references from the HelmRelease namespace, not the target namespace', () => {
    const asked: string[] = [];
    const lookup: ConfigLookup = (kind, namespace, name) => {
      asked.push(`${kind}/${namespace}/${name}`);
      return { 'values.yaml': 'a: 1' };
    };
    const spec = y`{ targetNamespace: web, valuesFrom: [{ kind: Secret, name: app }] }`;
    composeValues(release(spec, 'flux-system'), lookup, 'tenant-a');
    composeValues(release(spec, null), lookup, 'tenant-a');
    expect(asked).toEqual(['Secret/flux-system/app', 'Secret/tenant-a/app']);
  });

  it('leaves out a SOPS-encrypted Secret it cannot read, and places its marker at a targetPath', () => {
    const spec = y`
      values: { redis: { enabled: true } }
      valuesFrom:
        - { kind: Secret, name: sealed }
        - { kind: Secret, name: sealed, valuesKey: password, targetPath: redis.password }`;
    const sealed = {
      'values.yaml': sopsPlaceholder('values.yaml'),
      password: sopsPlaceholder('password'),
    };
    expect(compose(spec, { 'Secret/sealed': sealed })).toEqual(
      y`redis: { enabled: true, password: ..SOPS_password.. }`,
    );
  });

  it('reads values YAML as Go does: 1.1 booleans and octals, times as strings, one document', () => {
    const text = 'a: yes\nb: on\nc: 0777\nd: 12:30\ne: 2024-01-01\nf: 0o17\n---\ng: 1\n';
    const spec = y`valuesFrom: [{ kind: ConfigMap, name: v }]`;
    expect(compose(spec, { 'ConfigMap/v': { 'values.yaml': text } })).toEqual({
      ...{ a: true, b: true, c: 511 },
      ...{ d: '12:30', e: '2024-01-01', f: 15 },
    });
  });

  it('leaves the HelmRelease untouched and composes the same values every time', () => {
    const hr = release(y`
      values: { ingress: { annotations: { owner: web } } }
      valuesFrom: [{ kind: Secret, name: owner, valuesKey: team, targetPath: ingress.annotations.owner }]`);
    const before = structuredClone(hr);
    const lookup = lookupIn({ 'Secret/owner': { team: 'sre' } });
    expect(composeValues(hr, lookup)).toEqual(composeValues(hr, lookup));
    expect(hr).toEqual(before);
  });

  it('keeps a __proto__ key as plain data', () => {
    const spec = y`
      valuesFrom: [{ kind: ConfigMap, name: v }, { kind: Secret, name: s, targetPath: __proto__.x }]`;
    const values = compose(spec, {
      'ConfigMap/v': { 'values.yaml': '__proto__:\n  polluted: true\n' },
      'Secret/s': { 'values.yaml': '1' },
    });
    expect(Object.getPrototypeOf(values)).toBe(Object.prototype);
    expect(values['__proto__']).toEqual({ polluted: true, x: 1 });
  });
});

describe('chartDefaultValues', () => {
  let dirs: string[] = [];

  afterEach(async () => {
    await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
    dirs = [];
  });

  async function tree(files: Record<string, string>): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'fluxlens-values-'));
    dirs.push(dir);
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(dir, name)), { recursive: true });
      await writeFile(join(dir, name), text);
    }
    return dir;
  }

  const PODINFO_CHART = {
    'Chart.yaml': 'apiVersion: v2\nname: podinfo\nversion: 6.5.4\n',
    'values.yaml': 'replicaCount: 1\nredis: { enabled: false, tag: 7.0.5 }\n',
    'values-prod.yaml': 'replicaCount: 3\nredis: { enabled: true }\n',
    'ci/values-ha.yaml': 'replicaCount: 5\n',
    'templates/deployment.yaml': 'kind: Deployment\n',
  };

  it.each<[string, string[], boolean, Values | undefined]>([
    ['leaves the chart alone without valuesFiles', [], false, undefined],
    ['leaves the chart alone with just values.yaml', ['./values.yaml'], false, undefined],
    [
      'merges the listed files in order over the chart values',
      ['values.yaml', 'values-prod.yaml', 'ci/values-ha.yaml'],
      false,
      y`{ replicaCount: 5, redis: { enabled: true, tag: 7.0.5 } }`,
    ],
    [
      'replaces the chart values when values.yaml is not listed',
      ['values-prod.yaml'],
      false,
      y`{ replicaCount: 3, redis: { enabled: true } }`,
    ],
    [
      'skips a missing file when told to ignore missing files',
      ['values.yaml', 'values-eu.yaml'],
      true,
      y`{ replicaCount: 1, redis: { enabled: false, tag: 7.0.5 } }`,
    ],
    ['empties the chart values when every file is missing and ignored', ['eu.yaml'], true, {}],
  ])('%s', async (_behaviour, files, ignoreMissing, expected) => {
    const chart = await tree(PODINFO_CHART);
    expect(await chartDefaultValues(chart, files, ignoreMissing)).toEqual(expected);
  });

  it.each<[string, Record<string, string>, string[], RegExp]>([
    ['a missing file', PODINFO_CHART, ['eu.yaml'], /^no values file found at path 'eu.yaml'$/],
    ['a template', PODINFO_CHART, ['templates/deployment.yaml'], /no values file found/],
    ['a path outside the chart', PODINFO_CHART, ['../values-prod.yaml'], /no values file found/],
    [
      'invalid YAML',
      { ...PODINFO_CHART, 'values-bad.yaml': 'replicaCount: [3\n' },
      ['values-bad.yaml'],
      /^values file 'values-bad.yaml' is not valid YAML \(.+\)$/,
    ],
    [
      'a chart without values.yaml',
      { 'Chart.yaml': 'name: podinfo\n', 'values-prod.yaml': 'replicaCount: 3\n' },
      ['values-prod.yaml'],
      /no values.yaml/,
    ],
  ])('reports %s', async (_behaviour, files, valuesFiles, message) => {
    const chart = await tree(files);
    await expect(chartDefaultValues(chart, valuesFiles, false)).rejects.toThrow(message);
  });

  it("merges every document of the chart's values.yaml, but one of another file", async () => {
    const chart = await tree({
      ...PODINFO_CHART,
      'values.yaml': 'replicaCount: 1\n---\nredis: { tag: 7.0.5 }\n',
      'values-prod.yaml': 'replicaCount: 3\n---\nredis: { tag: 7.2.4 }\n',
    });
    expect(await chartDefaultValues(chart, ['values.yaml', 'values-prod.yaml'], false)).toEqual(
      y`{ replicaCount: 3, redis: { tag: 7.0.5 } }`,
    );
  });

  describe('for a chart from a GitRepository', () => {
    const SOURCE = {
      'charts/podinfo/Chart.yaml': 'apiVersion: v2\nname: podinfo\nversion: 6.5.4\n',
      'charts/podinfo/values.yaml': 'replicaCount: 1\n',
      'charts/podinfo/values-prod.yaml': 'replicaCount: 3\n',
      'values.yaml': 'fromRoot: true\n',
      'clusters/production/podinfo.yaml': 'replicaCount: 7\n',
    };

    it.each<[string, string[], boolean, Values]>([
      [
        'resolves paths against the source root',
        ['charts/podinfo/values.yaml', './clusters/production/podinfo.yaml'],
        false,
        { replicaCount: 7 },
      ],
      [
        "reads the root's values.yaml, not the chart's, beside other files",
        ['values.yaml', 'charts/podinfo/values-prod.yaml'],
        false,
        { fromRoot: true, replicaCount: 3 },
      ],
      [
        'keeps .. inside the source root',
        ['../../charts/podinfo/values-prod.yaml'],
        false,
        { replicaCount: 3 },
      ],
      [
        'skips a missing file when told to',
        ['charts/podinfo/eu.yaml', 'values.yaml'],
        true,
        { fromRoot: true },
      ],
    ])('%s', async (_behaviour, files, ignoreMissing, expected) => {
      const root = await tree(SOURCE);
      const chart = join(root, 'charts/podinfo');
      expect(await chartDefaultValues(chart, files, ignoreMissing, root)).toEqual(expected);
    });

    it('reports a directory even when missing files are ignored', async () => {
      const root = await tree(SOURCE);
      const chart = join(root, 'charts/podinfo');
      await expect(chartDefaultValues(chart, ['clusters'], true, root)).rejects.toThrow(
        /^no values file found at path 'clusters'$/,
      );
    });
  });
});
