/**
 * Generated values compositions: a HelmRelease with spec.values and a chain of valuesFrom
 * references (targetPath, valuesKey, optional, literal), and the ConfigMaps and Secrets of
 * the cluster, some of them missing, some in another namespace. The referenced texts are
 * YAML documents (valid or not, YAML 1.1 corners included) and flat values for a
 * targetPath in Helm's `--set` syntax.
 */
import fc from 'fast-check';
import { parseDocument } from 'yaml';

export const NAMESPACE = 'apps';

export interface ClusterObject {
  kind: 'ConfigMap' | 'Secret';
  namespace: string;
  name: string;
  data: Record<string, string>;
}

export interface ValuesReferenceCase {
  kind: 'ConfigMap' | 'Secret';
  name: string;
  valuesKey?: string;
  targetPath?: string;
  optional?: boolean;
  literal?: boolean;
}

export interface ValuesCase {
  helmRelease: {
    apiVersion: string;
    kind: 'HelmRelease';
    metadata: { name: string; namespace: string };
    spec: {
      chart: { spec: { chart: string; sourceRef: { kind: string; name: string } } };
      values?: Record<string, unknown> | null;
      valuesFrom?: ValuesReferenceCase[];
    };
  };
  objects: ClusterObject[];
}

const KINDS = ['ConfigMap', 'Secret'] as const;
/** The objects a case may hold (or lack). */
const NAMES = ['app-values', 'shared'];
/** Keys of whole YAML documents, then of flat values for a targetPath. */
const YAML_KEYS = ['values.yaml', 'extra.yaml'];
const FLAT_KEYS = ['v', 'a.b'];
/** Keys the HelmRelease CRD refuses as a valuesKey (the API server rejects such a release). */
const BAD_KEYS = ['', 'a b', 'é', 'a/b'];

/** Mostly plain keys; now and then one that only a careful reader keeps. */
const treeKey = fc.oneof(
  { weight: 12, arbitrary: fc.constantFrom('a', 'b', 'c', 'list', 'a.b', 'x-y') },
  { weight: 1, arbitrary: fc.constantFrom('0', '', '__proto__', 'constructor', 'é') },
);

/** An optional field: absent about half the time. */
const maybe = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.option(arb, { nil: undefined, freq: 2 });

/** A spec.values tree, or a tree to write as a YAML document. */
const { tree } = fc.letrec<{ tree: unknown }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', maxDepth: 3, withCrossShrink: true },
    fc.constantFrom(0, 1, -1, 2.5, 1e21, 12345678, 9007199254740992, true, false, null),
    fc.constantFrom('', 'x', 'yes', 'on', '1', '0x1F', '~', 'a,b', 'é', '1e3'),
    fc.array(tie('tree'), { maxLength: 3 }),
    fc
      .array(fc.tuple(treeKey, tie('tree')), { maxLength: 3 })
      .map((entries) => Object.fromEntries(entries)),
  ),
}));

const mapping = fc
  .array(fc.tuple(treeKey, tree), { maxLength: 4 })
  .map((entries): Record<string, unknown> => Object.fromEntries(entries));

/** Lines that YAML 1.1 (go-yaml v2, as Helm reads values) and YAML 1.2 may read apart. */
const YAML_LINES = [
  'a: 1',
  'a: yes',
  'b: on',
  'c: 0x1F',
  'c: 017',
  'c: 0o17',
  'c: 1_000',
  'c: +1',
  'c: .inf',
  'c: -.Inf',
  'c: .nan',
  'c: 1e3',
  'c: 2001-12-14',
  'd: ~',
  'd: null',
  'e: !!str 1',
  'e: !!binary aGk=',
  'list: [1, two, {x: 3}]',
  'list:\n  - 1\n  - a: 2',
  'a:\n  b: 1\n  c: [x]',
  'a.b: dotted',
  '"quoted key": 1',
  '1: one',
  'true: t',
  '~: n',
  'x: &anchor {p: 1}\ny: *anchor',
  '<<: {m: 1}',
  'a: 1\na: 2',
  '---',
  '# only a comment',
  '- a list',
  'just text',
  'a: [1, 2',
  'a: b: c',
  '\ta: tab',
  'a: "é\\u00e9"',
  'a: |\n  block\n  text',
  '__proto__: {polluted: 1}',
];

const yamlText = fc.oneof(
  fc.array(fc.constantFrom(...YAML_LINES), { minLength: 1, maxLength: 4 }).map((l) => l.join('\n')),
  mapping.map((m) => JSON.stringify(m)),
  fc.constantFrom('', '{}', 'null', '[]', '"string"'),
);

/** Flat values for a targetPath: Helm's `--set` typing, quoting, lists and escapes. */
const flatText = fc.oneof(
  fc.constantFrom(
    ...['1', '0', '-0', '007', '+5', '12345678', '9223372036854775807', '9223372036854775808'],
    ...['1.5', 'true', 'TRUE', 'False', 'null', 'NULL', 'ſtrue', '', ' ', 'é'],
    ...['"quoted"', "'single'", '"', "''", '"a', 'a"', '"1"', "'true'"],
    ...['a,b', 'a=b', '{x,y}', '{1,2}', '{}', '[1]', 'x\\,y', 'x\\', 'line\nline', 'k=v,k2=v2'],
  ),
  fc
    .array(fc.constantFrom('a', '1', ',', '=', '{', '}', '[', ']', '\\', '.', '"', "'", ' ', 'é'), {
      maxLength: 6,
    })
    .map((chars) => chars.join('')),
);

const SEGMENTS = [
  ...['a', 'b', 'list', 'x-y', '_', '0', 'a\\.b', 'b\\\\', 'a/b'],
  ...['list[0]', 'list[2]', 'a[1][0]', '[0]', 'list[00001]', 'list[65536]', 'list[65537]'],
];
/** Refused by the HelmRelease CRD's targetPath pattern. */
const BAD_SEGMENTS = ['', 'é', 'a b', 'a,b', 'a=b', 'a[', 'a]', 'list[-1]', 'list[123456]'];

const targetPath = fc
  .array(
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(...SEGMENTS) },
      { weight: 1, arbitrary: fc.constantFrom(...BAD_SEGMENTS) },
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((s) => s.join('.'));

const reference: fc.Arbitrary<ValuesReferenceCase> = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    name: fc.oneof(
      { weight: 8, arbitrary: fc.constantFrom(...NAMES) },
      { weight: 1, arbitrary: fc.constant('missing') },
    ),
    valuesKey: maybe(
      fc.oneof(
        { weight: 10, arbitrary: fc.constantFrom(...YAML_KEYS, ...FLAT_KEYS) },
        { weight: 1, arbitrary: fc.constantFrom(...BAD_KEYS) },
      ),
    ),
    targetPath: maybe(targetPath),
    optional: maybe(fc.boolean()),
    literal: maybe(fc.boolean()),
  })
  // Absent fields left out, as exactOptionalPropertyTypes wants them.
  .map(({ valuesKey, targetPath, optional, literal, ...ref }) => ({
    ...ref,
    ...(valuesKey === undefined ? {} : { valuesKey }),
    ...(targetPath === undefined ? {} : { targetPath }),
    ...(optional === undefined ? {} : { optional }),
    ...(literal === undefined ? {} : { literal }),
  }));

/**
 * A known difference, left out: go-yaml v2 reads the flow collection that opens a document
 * and ignores what follows it (`{a: 1} b`, `{}]`), where the yaml package fails the text.
 * No values file is written that way, and matching it would mean accepting broken YAML.
 */
const flowThenText = (text: string): boolean =>
  /^\s*[[{]/.test(text) && parseDocument(text).errors.length > 0;

/** The text under one key: what the key's name suggests, now and then the other kind. */
const textFor = (key: string): fc.Arbitrary<string> =>
  (YAML_KEYS.includes(key)
    ? fc.oneof({ weight: 4, arbitrary: yamlText }, { weight: 1, arbitrary: flatText })
    : fc.oneof({ weight: 4, arbitrary: flatText }, { weight: 1, arbitrary: yamlText })
  ).filter((text) => !flowThenText(text));

/** Each key there three times in four. */
const data = fc
  .tuple(
    ...[...YAML_KEYS, ...FLAT_KEYS].map((key) =>
      fc.option(textFor(key), { nil: undefined, freq: 4 }).map((text) => [key, text] as const),
    ),
  )
  .map((entries) => {
    const out: Record<string, string> = {};
    for (const [key, text] of entries) if (text !== undefined) out[key] = text;
    return out;
  });

/**
 * The cluster: each object the references may name there four times in five, and now and
 * then a same-named one in another namespace, which Flux must not read.
 */
const objects: fc.Arbitrary<ClusterObject[]> = fc
  .tuple(
    ...KINDS.flatMap((kind) =>
      NAMES.map((name) =>
        fc
          .option(data, { nil: undefined, freq: 5 })
          .map((d) => (d === undefined ? [] : [{ kind, namespace: NAMESPACE, name, data: d }])),
      ),
    ),
    fc.option(
      fc.record({ kind: fc.constantFrom(...KINDS), name: fc.constantFrom(...NAMES), data }),
      { nil: undefined, freq: 4 },
    ),
  )
  .map(([...found]) =>
    found.flatMap((o): ClusterObject[] => {
      if (o === undefined) return [];
      if (Array.isArray(o)) return o;
      return [{ ...o, namespace: 'other' }];
    }),
  );

export const valuesCase: fc.Arbitrary<ValuesCase> = fc
  .record(
    {
      values: fc.oneof(
        { weight: 6, arbitrary: mapping },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
      valuesFrom: fc.array(reference, { maxLength: 4 }),
      objects,
    },
    { requiredKeys: ['objects'] },
  )
  .map(({ values, valuesFrom, objects }) => ({
    helmRelease: {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'app', namespace: NAMESPACE },
      spec: {
        chart: { spec: { chart: 'app', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
        ...(values === undefined ? {} : { values }),
        ...(valuesFrom === undefined ? {} : { valuesFrom }),
      },
    },
    objects,
  }));
