import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../src/errors.js';
import { parsePolicy } from '../../../src/policy/parse-policy.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { RULE_IDS, RULES } from '../../../src/risk/registry.js';
import { projectRoot } from '../../support/paths.js';

function parseError(text: string): string {
  try {
    parsePolicy(text, RULE_IDS);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error('expected parsePolicy to fail');
}

describe('parsePolicy', () => {
  it.each([
    ['an empty file', ''],
    ['a file of comments', '# nothing to configure yet\n'],
    ['an explicit null document', '~\n'],
  ])('reads %s as the default policy', (_case, text) => {
    expect(parsePolicy(text, RULE_IDS)).toEqual(DEFAULT_POLICY);
  });

  it('reads every setting', () => {
    const policy = parsePolicy(
      `
rules:
  image-unpinned: off
  public-entrance: danger
ignore:
  - rule: stateful-data-deleted
    resource: PersistentVolumeClaim/scratch/*
  - rule: "*"
    resource: ConfigMap/kube-system/cluster-info
  - rule: immutable-field-changed
normalize:
  labels: [helm.sh/chart]
  annotations: [checksum/config]
  fields: [spec.replicas]
publicGateways: [internet-facing]
failOn: caution
clusters:
  - name: prod
    path: ./clusters/prod/
  - name: staging
    path: clusters/staging
`,
      RULE_IDS,
    );
    expect(policy).toEqual({
      levels: { 'image-unpinned': 'off', 'public-entrance': 'danger' },
      ignores: [
        { rule: 'stateful-data-deleted', resource: 'PersistentVolumeClaim/scratch/*' },
        { rule: '*', resource: 'ConfigMap/kube-system/cluster-info' },
        { rule: 'immutable-field-changed', resource: '*' },
      ],
      normalize: {
        labels: ['helm.sh/chart'],
        annotations: ['checksum/config'],
        fields: ['spec.replicas'],
      },
      publicGateways: ['internet-facing'],
      failOn: 'caution',
      clusters: [
        { name: 'prod', path: 'clusters/prod' },
        { name: 'staging', path: 'clusters/staging' },
      ],
    });
  });

  it('accepts every rule fluxlens has', () => {
    const text = `rules:\n${RULES.map((r) => `  ${r.id}: info\n`).join('')}`;
    expect(Object.keys(parsePolicy(text, RULE_IDS).levels)).toEqual(RULES.map((r) => r.id));
  });

  it('keeps the defaults for settings the file leaves out', () => {
    const policy = parsePolicy('normalize:\n  labels: [team]\n', RULE_IDS);
    expect(policy).toEqual({
      ...DEFAULT_POLICY,
      normalize: { labels: ['team'], annotations: [], fields: [] },
    });
  });

  it('never shares the default policy object with its callers', () => {
    const policy = parsePolicy('', RULE_IDS);
    policy.publicGateways.push('mutated');
    expect(parsePolicy('', RULE_IDS).publicGateways).toEqual(['external', 'public']);
    expect(DEFAULT_POLICY.publicGateways).toEqual(['external', 'public']);
  });

  it.each([
    ['a cluster without a path', 'clusters:\n  - name: prod\n', 'clusters.0.path: required'],
    ['a cluster without a name', 'clusters:\n  - path: x\n', 'clusters.0.name: required'],
    ['an unknown top-level key', 'failsOn: info\n', 'failsOn: unknown key'],
    [
      'an unknown key in a cluster',
      'clusters: [{name: a, path: a, env: x}]',
      'clusters.0.env: unknown key',
    ],
    ['an unknown key in normalize', 'normalize: {label: [a]}', 'normalize.label: unknown key'],
    [
      'an unknown key in an ignore',
      'ignore: [{rule: secret-in-clear, kind: Secret}]',
      'ignore.0.kind: unknown key',
    ],
    [
      'an unknown level',
      'rules: {stateful-data-deleted: loud}',
      'rules.stateful-data-deleted: must be one of off, info, caution, danger, got string "loud"',
    ],
    [
      'a rule fluxlens does not have',
      'rules: {pvc-deleted: off}',
      'rules.pvc-deleted: unknown rule (see docs/rules.md)',
    ],
    [
      'an unknown failOn',
      'failOn: always',
      'failOn: must be one of info, caution, danger, never, got string "always"',
    ],
    ['a list where a mapping belongs', 'rules: [a]', 'rules: expected a mapping, got a list'],
    [
      'a string where a list belongs',
      'publicGateways: public',
      'publicGateways: expected a list, got string "public"',
    ],
    ['a null list', 'clusters: null', 'clusters: expected a list, got null'],
    [
      'a cluster path outside the repository',
      'clusters: [{name: a, path: ../other}]',
      'clusters.0.path: must be a folder inside the repository',
    ],
    [
      'an absolute cluster path',
      'clusters: [{name: a, path: /etc}]',
      'clusters.0.path: must be a folder inside the repository',
    ],
    [
      'the filesystem root as a cluster path',
      'clusters: [{name: a, path: /}]',
      'clusters.0.path: must be a folder inside the repository',
    ],
    [
      'a cluster path that climbs out through a folder',
      'clusters: [{name: a, path: a/../../other}]',
      'clusters.0.path: must be a folder inside the repository',
    ],
    [
      'an empty cluster name',
      'clusters: [{name: "", path: a}]',
      'clusters.0.name: must not be empty',
    ],
    [
      'two clusters with one name',
      'clusters: [{name: a, path: a}, {name: a, path: b}]',
      "clusters.1.name: duplicate name 'a'",
    ],
    [
      'an ignore with a bad rule',
      'ignore: [{rule: pvc-deleted}]',
      "ignore.0.rule: unknown rule (or '*' for every rule)",
    ],
    ['a list as the document', '- rules\n', 'must be a mapping of settings'],
    ['a scalar as the document', 'danger\n', 'must be a mapping of settings'],
  ])('names the field for %s', (_case, text, message) => {
    expect(parseError(text)).toBe(`.fluxlens.yaml: ${message}`);
  });

  it('lists several problems at once', () => {
    expect(parseError('failOn: always\nextra: 1\n')).toBe(
      '.fluxlens.yaml: failOn: must be one of info, caution, danger, never, got string "always"; extra: unknown key',
    );
  });

  it.each([
    ['broken YAML', 'rules: [\n', /^\.fluxlens\.yaml: invalid YAML \(line \d+\): /],
    [
      'a duplicate key',
      'failOn: info\nfailOn: danger\n',
      /^\.fluxlens\.yaml: invalid YAML \(line 2\): .*unique/,
    ],
    [
      'lists nested 1,000 deep',
      `clusters: ${'['.repeat(1000)}${']'.repeat(1000)}\n`,
      /^\.fluxlens\.yaml: invalid YAML \(line 1\): nesting deeper than 256 levels$/,
    ],
    [
      'mappings nested 1,000 deep',
      `rules:\n${Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i + 1)}a:`).join('\n')} x\n`,
      /^\.fluxlens\.yaml: invalid YAML \(line 258\): nesting deeper than 256 levels$/,
    ],
  ])('reports %s with its line', (_case, text, message) => {
    expect(parseError(text)).toMatch(message);
  });
});

describe('the inClusterSources policy key', () => {
  it.each([
    ['assume', 'assume'],
    ['fail', 'fail'],
  ])('reads inClusterSources: %s', (value, expected) => {
    expect(parsePolicy(`inClusterSources: ${value}\n`, RULE_IDS).inClusterSources).toBe(expected);
  });

  it('leaves it unset when the file does not say, which renders as assume', () => {
    expect(parsePolicy('failOn: caution\n', RULE_IDS).inClusterSources).toBeUndefined();
  });

  it('refuses any other value, naming the key', () => {
    expect(() => parsePolicy('inClusterSources: ignore\n', RULE_IDS)).toThrow(
      '.fluxlens.yaml: inClusterSources: must be one of assume, fail, got string "ignore"',
    );
  });
});

describe('the checkImages policy key', () => {
  it('turns the image check on with true', () => {
    expect(parsePolicy('checkImages: true\n', RULE_IDS).checkImages).toBe(true);
  });

  it.each(['checkImages: false\n', 'failOn: caution\n', ''])(
    'leaves the image check off unless asked (%j)',
    (text) => {
      expect(parsePolicy(text, RULE_IDS).checkImages).toBeUndefined();
    },
  );

  it('refuses anything but a boolean, naming the key', () => {
    expect(() => parsePolicy('checkImages: yes-please\n', RULE_IDS)).toThrow(
      '.fluxlens.yaml: checkImages: expected a boolean, got string "yes-please"',
    );
  });
});

describe('the README policy example', () => {
  it('parses, so the documentation cannot drift from the parser', () => {
    const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
    const block = /### Repository policy[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const policy = parsePolicy(block ?? '', RULE_IDS);
    expect(policy.levels['image-unpinned']).toBe('off');
    expect(policy.clusters.map((c) => c.name)).toEqual(['prod', 'staging']);
  });
});

describe('the acknowledgements policy key', () => {
  it.each([
    ['acknowledgements: carry\n', 'carry'],
    ['acknowledgements: head\n', 'head'],
    ['failOn: caution\n', undefined],
  ])('reads %j as %s (absent: an acknowledgement holds for its head only)', (text, expected) => {
    expect(parsePolicy(text, RULE_IDS).acknowledgements).toBe(expected);
  });

  it('refuses any other word, naming the key', () => {
    expect(() => parsePolicy('acknowledgements: forever\n', RULE_IDS)).toThrow(
      '.fluxlens.yaml: acknowledgements: must be one of head, carry, got string "forever"',
    );
  });
});
