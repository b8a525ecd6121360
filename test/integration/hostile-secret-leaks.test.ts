/**
 * Hostile inputs, Secret values (issue 11, points 1 and 2): a Secret value that reaches
 * other objects through Helm values (valuesFrom, or spec.values substituted from one) or
 * through any operator of Flux's substitution dialect never shows, nor any text derived
 * from it, in `fluxlens render` (YAML, JSON) at base or head, in `fluxlens diff` (Markdown,
 * JSON, text, HTML) or in the check run. Rotating it still reads as a change, and the same
 * expressions over a ConfigMap's value stay readable.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envsubst, substituteTracked } from '../../src/render/builtin/substitute.js';
import { redactManifest } from '../../src/redact/index.js';
import { renderCheckRun } from '../../src/report/check-run.js';
import { runCli } from '../support/cli.js';
import { analyzeBranches } from '../support/render.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo, yamlStream } from '../support/repo.js';

const HIDDEN = '<redacted>';
const CHANGED = '<redacted:changed>';

/** One revision's values. Digits only in the Secret's core, letters only in the ConfigMap's. */
interface Values {
  /** Substituted from a Secret: `alpha-<24 digits>-omega`. */
  dbpass: string;
  /** Substituted from a ConfigMap, the same shape: `alpha-<24 letters>-omega`. */
  plain: string;
  /** Helm values read from a Secret (valuesFrom, whole values.yaml). */
  password: string;
  /** Four digits: too short to be searched for. */
  pin: string;
  /** Helm value read from a Secret key at a targetPath. */
  token: string;
  /** A non-secret Helm value, from a ConfigMap. */
  message: string;
}

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const letters = (n: number) =>
  Array.from({ length: n }, () => 'ghijklmnopqrstuvwxyz'[randomInt(20)]).join('');

function values(pin: string): Values {
  return {
    dbpass: `alpha-${digits(24)}-omega`,
    plain: `alpha-${letters(24)}-omega`,
    password: `pw-${randomBytes(12).toString('hex')}`,
    pin,
    token: `tok-${randomBytes(12).toString('hex')}`,
    message: `hello from ${letters(12)}`,
  };
}

/** One row per operator of the dialect; `around` is text the expression is written inside. */
interface Row {
  name: string;
  expr: string;
  around?: [string, string];
}

const OPERATORS: Row[] = [
  { name: 'a plain reference', expr: '${DBPASS}' },
  { name: 'a plain reference inside text', expr: '${DBPASS}', around: ['pg://web:', '@db'] },
  { name: 'a substring from an offset', expr: '${DBPASS:6}' },
  { name: 'a substring of ten characters', expr: '${DBPASS:0:10}' },
  { name: 'a long substring inside text', expr: '${DBPASS:6:12}', around: ['pg://web:', '@db'] },
  { name: 'a two-character substring', expr: '${DBPASS:6:2}' },
  { name: 'a short substring inside text', expr: '${DBPASS:6:2}', around: ['db-', '-x'] },
  { name: 'a substring with a negative length', expr: '${DBPASS:6:-20}' },
  { name: 'the last ten characters', expr: '${DBPASS:26}' },
  { name: 'an unparsable offset, the whole value', expr: '${DBPASS: -5}' },
  { name: 'the length', expr: '${#DBPASS}' },
  { name: 'the first character upper-cased', expr: '${DBPASS^}' },
  { name: 'upper case', expr: '${DBPASS^^}' },
  { name: 'the first character lower-cased', expr: '${DBPASS,}' },
  { name: 'lower case', expr: '${DBPASS,,}' },
  { name: 'the shortest prefix trimmed', expr: '${DBPASS#alpha-}' },
  { name: 'a prefix trimmed by a glob', expr: '${DBPASS#alpha-??}' },
  { name: 'the longest prefix trimmed', expr: '${DBPASS##*-}' },
  { name: 'the shortest suffix trimmed', expr: '${DBPASS%-*}' },
  { name: 'the longest suffix trimmed', expr: '${DBPASS%%-*}' },
  { name: 'the first match replaced', expr: '${DBPASS/alpha/beta}' },
  { name: 'every match replaced', expr: '${DBPASS//a/A}' },
  { name: 'a prefix replaced', expr: '${DBPASS/#alpha-/x}' },
  { name: 'a suffix replaced', expr: '${DBPASS/%-omega/x}' },
  { name: 'a match deleted', expr: '${DBPASS/-omega/}' },
  { name: 'a default not taken', expr: '${DBPASS:-fallback}' },
  { name: 'an assigned default not taken', expr: '${DBPASS:=fallback}' },
  { name: 'an = default not taken', expr: '${DBPASS=fallback}' },
  { name: 'an alternate value', expr: '${DBPASS:+alternate}' },
  { name: 'an error-if-empty not raised', expr: '${DBPASS:?missing}' },
  { name: 'a default that is the value', expr: '${UNSET:-${DBPASS}}' },
  { name: 'a default that is a substring', expr: '${UNSET:-${DBPASS:6:3}}' },
  { name: 'a default that concatenates text and a substring', expr: '${UNSET:-x${DBPASS:6:2}}' },
  { name: 'a trim pattern taken from the value', expr: '${HOST#${DBPASS:0:6}}' },
];

const plainOf = (expr: string) => expr.replaceAll('DBPASS', 'PLAIN');
const rowKey = (i: number) => `row-${String(i).padStart(2, '0')}`;

function written(row: Row, expr: string): string {
  return `${row.around?.[0] ?? ''}${expr}${row.around?.[1] ?? ''}`;
}

/** What the expression expands to with these variables. */
function derived(expr: string, v: Values): string {
  const vars: Record<string, string> = { DBPASS: v.dbpass, PLAIN: v.plain, HOST: 'alpha-host' };
  return envsubst(expr, (name) => vars[name], { strict: true });
}

/** A YAML single-quoted scalar, as the repository writes the expression. */
const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

function opsConfigMap(name: string, exprOf: (expr: string) => string, key: string): string {
  const rows = OPERATORS.map(
    (row, i) => `  ${rowKey(i)}: ${quoted(written(row, exprOf(row.expr)))}`,
  );
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
  namespace: apps
data:
${rows.join('\n')}
  ${quoted(`key-${exprOf('${DBPASS:6:2}')}`)}: derived key
  ${key}
`;
}

const CHART: RepoFiles = {
  'charts/leaky/Chart.yaml': 'apiVersion: v2\nname: leaky\nversion: 0.1.0\n',
  'charts/leaky/values.yaml':
    'db:\n  password: ""\n  pin: ""\napi:\n  token: ""\nmessage: ""\nexplode: false\n',
  'charts/leaky/templates/settings.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-settings
data:
  password: {{ .Values.db.password | quote }}
  dsn: {{ printf "postgres://web:%s@db.apps:5432/web" .Values.db.password | quote }}
  pin: {{ .Values.db.pin | quote }}
  token: {{ .Values.api.token | quote }}
  message: {{ .Values.message | quote }}
`,
  'charts/leaky/templates/deployment.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
spec:
  selector:
    matchLabels: { app: {{ .Release.Name }} }
  template:
    metadata:
      labels: { app: {{ .Release.Name }} }
    spec:
      containers:
        - name: app
          image: nginx:1.27
          env:
            - name: DB_PASSWORD
              value: {{ .Values.db.password | quote }}
            - name: DB_PIN
              value: {{ .Values.db.pin | quote }}
            - name: API_TOKEN
              value: {{ .Values.api.token | quote }}
            - name: GREETING
              value: {{ .Values.message | quote }}
`,
  'charts/leaky/templates/explode.yaml': `{{- if .Values.explode }}
{{- fail (printf "refusing password %s" .Values.db.password) }}
{{- end }}
`,
};

function release(name: string, spec: string): string {
  return `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: ${name}
  namespace: apps
spec:
  interval: 1h
  chart:
    spec:
      chart: ./charts/leaky
      sourceRef:
        kind: GitRepository
        name: flux-system
        namespace: flux-system
${spec}`;
}

const VALUES_FROM = `  valuesFrom:
    - kind: ConfigMap
      name: app-values
    - kind: Secret
      name: db-values
    - kind: Secret
      name: api-token
      valuesKey: token
      targetPath: api.token
`;

function files(v: Values): RepoFiles {
  const apps = {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: 'apps', namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path: './apps',
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      postBuild: {
        substitute: { HOST: 'alpha-host' },
        substituteFrom: [
          { kind: 'ConfigMap', name: 'cluster-vars' },
          { kind: 'Secret', name: 'cluster-secrets' },
        ],
      },
    },
  };
  return {
    ...CHART,
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yamlStream(apps),
    'clusters/prod/vars.yaml': yamlStream(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'cluster-secrets', namespace: 'flux-system' },
        stringData: { DBPASS: v.dbpass },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cluster-vars', namespace: 'flux-system' },
        data: { PLAIN: v.plain },
      },
    ),
    'apps/ops-secret.yaml': opsConfigMap('ops-secret', (e) => e, 'visible: plain text'),
    'apps/ops-plain.yaml': opsConfigMap('ops-plain', plainOf, 'visible: plain text'),
    'apps/helm-values.yaml': yamlStream(
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'db-values', namespace: 'apps' },
        stringData: { 'values.yaml': `db:\n  password: ${v.password}\n  pin: "${v.pin}"\n` },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'api-token', namespace: 'apps' },
        stringData: { token: v.token },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'app-values', namespace: 'apps' },
        data: { 'values.yaml': `message: ${v.message}\n` },
      },
    ),
    'apps/leaky.yaml': release('leaky', VALUES_FROM),
    'apps/exploding.yaml': release('exploding', `${VALUES_FROM}  values:\n    explode: true\n`),
    // spec.values substituted from the Secret: the chart copies a derived value.
    'apps/chained.yaml': release(
      'chained',
      `  values:\n    db:\n      password: '\${DBPASS^^}'\n      pin: '\${DBPASS:6:4}'\n`,
    ),
    ...RELAYED,
  };
}

/**
 * Derived text substituted again: `apps` writes it into a ConfigMap and into the inline
 * variables of a Kustomization it applies, which substitutes from both.
 */
const RELAYED: RepoFiles = {
  'apps/relay-vars.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: relay-vars
  namespace: flux-system
data:
  RELAY: '\${DBPASS:6:3}'
  RELAY_LONG: '\${DBPASS^^}'
  RELAY_PLAIN: '\${PLAIN:6:3}'
`,
  'apps/relayed.yaml': `apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: relayed
  namespace: flux-system
spec:
  interval: 10m
  path: ./relayed
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
  postBuild:
    substitute:
      CHILD: 'c\${DBPASS:6:2}'
      CHILD_PLAIN: 'c\${PLAIN:6:2}'
    substituteFrom:
      - kind: ConfigMap
        name: relay-vars
`,
  'relayed/config.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: relayed
  namespace: apps
data:
  short: 'x\${RELAY}'
  long: 'x-\${RELAY_LONG}'
  inline: 'x\${CHILD}'
  plain: 'x\${RELAY_PLAIN}\${CHILD_PLAIN}'
`,
};

/** 8-character windows of a value: no report may hold any of them. */
function windows(value: string): string[] {
  return Array.from({ length: value.length - 7 }, (_, i) => value.slice(i, i + 8));
}

/** Everything derived from the Secrets long enough to be told from ordinary text. */
function forbidden(v: Values): string[] {
  const core = v.dbpass.slice(6, 30);
  const long = OPERATORS.map((row) => derived(row.expr, v)).filter((t) => t.length >= 8);
  return [
    ...long,
    ...windows(core),
    ...windows(v.password.slice(3)),
    ...windows(v.token.slice(4)),
    ...windows(v.dbpass.toUpperCase().slice(6, 30)),
  ];
}

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

type Manifest = {
  kind: string;
  metadata: { name: string; namespace?: string };
  data?: Record<string, unknown>;
} & Record<string, unknown>;

interface RenderJson {
  objects: Array<{ manifest: Manifest }>;
  errors: Array<{ producer: { name: string }; message: string }>;
}

interface Change {
  kind: string;
  name: string;
  status: string;
  old?: Manifest;
  new?: Manifest;
  diff: string;
}

interface DiffJson {
  changes: Change[];
  errors: Array<{ producer: { name: string }; message: string }>;
}

const base = values(digits(4));
let headPin = digits(4);
while (headPin === base.pin) headPin = digits(4);
const head = values(headPin);

let repo: TestRepo;
/** Every output a user or the check run sees, by name. */
const outputs: Record<string, string> = {};
const rendered: Record<'base' | 'head', RenderJson> = {
  base: { objects: [], errors: [] },
  head: { objects: [], errors: [] },
};
let report: DiffJson = { changes: [], errors: [] };

beforeAll(async () => {
  repo = makeRepo(files(base), { git: true });
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  repo.write(files(head));
  repo.commit('rotate every secret');
  const common = ['--repo', repo.dir, '--path', 'clusters/prod', '--offline'];
  for (const [side, rev] of [
    ['base', 'main'],
    ['head', 'pr'],
  ] as const) {
    for (const format of ['yaml', 'json']) {
      const run = await runCli(['render', ...common, '--rev', rev, '--output', format]);
      expect(run.code).toBe(0);
      outputs[`render ${format} at ${side}`] = run.stdout;
      outputs[`render ${format} at ${side}, its messages`] = run.stderr;
    }
    rendered[side] = JSON.parse(outputs[`render json at ${side}`] ?? '') as RenderJson;
  }
  for (const format of ['markdown', 'json', 'text', 'html']) {
    const run = await runCli([
      'diff',
      ...common,
      '--base',
      'main',
      '--head',
      'pr',
      '--format',
      format,
    ]);
    expect(run.code).not.toBe(2);
    outputs[`diff ${format}`] = run.stdout;
    outputs[`diff ${format}, its messages`] = run.stderr;
  }
  report = JSON.parse(outputs['diff json'] ?? '') as DiffJson;
  const result = await analyzeBranches(repo.dir, 'main', 'pr');
  outputs['check run'] = JSON.stringify(renderCheckRun(result, 'danger'));
});

afterAll(() => repo?.remove());

function objectIn(side: 'base' | 'head', kind: string, name: string): Manifest {
  const found = rendered[side].objects.find(
    (o) => o.manifest.kind === kind && o.manifest.metadata.name === name,
  );
  expect(found, `${kind} ${name} at ${side}`).toBeDefined();
  return found?.manifest as Manifest;
}

function changeOf(kind: string, name: string): Change {
  const found = report.changes.find((c) => c.kind === kind && c.name === name);
  expect(found, `the change of ${kind} ${name}`).toBeDefined();
  return found as Change;
}

function envOf(manifest: Manifest | undefined): Record<string, unknown> {
  const spec = manifest?.['spec'] as {
    template: { spec: { containers: Array<{ env: Array<{ name: string; value: unknown }> }> } };
  };
  const env = spec.template.spec.containers[0]?.env ?? [];
  return Object.fromEntries(env.map((e) => [e.name, e.value]));
}

const OUTPUTS = [
  ...['base', 'head'].flatMap((side) =>
    ['yaml', 'json'].flatMap((f) => [
      `render ${f} at ${side}`,
      `render ${f} at ${side}, its messages`,
    ]),
  ),
  ...['markdown', 'json', 'text', 'html'].flatMap((f) => [`diff ${f}`, `diff ${f}, its messages`]),
  'check run',
];

describe('no output holds a Secret value or text derived from one', () => {
  it('captured every output', () => {
    expect(Object.keys(outputs).sort()).toEqual([...OUTPUTS].sort());
  });

  it.each(OUTPUTS)('%s', (name) => {
    const output = outputs[name] ?? '';
    const leaked = [...forbidden(base), ...forbidden(head)].filter((t) => output.includes(t));
    expect(leaked).toEqual([]);
  });
});

describe('Secret values a chart copies from valuesFrom', () => {
  it.each(['base', 'head'] as const)(
    'are hidden in the ConfigMap and env vars `render` prints at %s, other values readable',
    (side) => {
      const v = side === 'base' ? base : head;
      expect(objectIn(side, 'ConfigMap', 'leaky-settings').data).toEqual({
        password: HIDDEN,
        dsn: `postgres://web:${HIDDEN}@db.apps:5432/web`,
        pin: HIDDEN,
        token: HIDDEN,
        message: v.message,
      });
      expect(envOf(objectIn(side, 'Deployment', 'leaky'))).toEqual({
        DB_PASSWORD: HIDDEN,
        DB_PIN: HIDDEN,
        API_TOKEN: HIDDEN,
        GREETING: v.message,
      });
    },
  );

  it('are hidden when spec.values was substituted from a Secret and upper-cased', () => {
    for (const side of ['base', 'head'] as const) {
      const settings = objectIn(side, 'ConfigMap', 'chained-settings').data;
      expect(settings?.['password']).toBe(HIDDEN);
      expect(settings?.['dsn']).toBe(`postgres://web:${HIDDEN}@db.apps:5432/web`);
      expect(settings?.['pin']).toBe(HIDDEN);
      const values = (objectIn(side, 'HelmRelease', 'chained')['spec'] as { values: unknown })
        .values;
      expect(values).toEqual({ db: { password: HIDDEN, pin: HIDDEN } });
    }
  });

  it('still report a rotation as a change of every object that carries them', () => {
    const settings = changeOf('ConfigMap', 'leaky-settings');
    expect(settings.status).toBe('changed');
    expect(settings.old?.data).toMatchObject({ password: HIDDEN, pin: HIDDEN, token: HIDDEN });
    expect(settings.new?.data).toEqual({
      password: CHANGED,
      dsn: `postgres://web:${CHANGED}@db.apps:5432/web`,
      pin: CHANGED,
      token: CHANGED,
      message: head.message,
    });
    expect(settings.diff).toContain(`+  pin: ${CHANGED}`);
    const deployment = changeOf('Deployment', 'leaky');
    expect(envOf(deployment.new)).toEqual({
      DB_PASSWORD: CHANGED,
      DB_PIN: CHANGED,
      API_TOKEN: CHANGED,
      GREETING: head.message,
    });
    expect(changeOf('ConfigMap', 'chained-settings').new?.data?.['pin']).toBe(CHANGED);
  });

  it('are hidden in the error of a chart that quotes them', () => {
    for (const side of ['base', 'head'] as const) {
      const v = side === 'base' ? base : head;
      expect(rendered[side].errors.map((e) => e.producer.name)).toEqual(['exploding']);
      const error = rendered[side].errors.find((e) => e.producer.name === 'exploding');
      expect(error?.message).toContain(`refusing password ${HIDDEN}`);
      expect(error?.message).not.toContain(v.password);
    }
    expect(report.errors.filter((e) => e.producer.name === 'exploding')).toHaveLength(2);
  });
});

describe('derived text substituted again', () => {
  it.each(['base', 'head'] as const)(
    'stays hidden through a ConfigMap and inline variables at %s, plain text readable',
    (side) => {
      const v = side === 'base' ? base : head;
      expect(objectIn(side, 'ConfigMap', 'relayed').data).toEqual({
        short: HIDDEN,
        long: `x-${HIDDEN}`,
        inline: HIDDEN,
        plain: `x${derived('${PLAIN:6:3}c${PLAIN:6:2}', v)}`,
      });
      const relayed = objectIn(side, 'Kustomization', 'relayed')['spec'] as {
        postBuild: { substitute: Record<string, string> };
      };
      expect(relayed.postBuild.substitute).toEqual({
        CHILD: HIDDEN,
        CHILD_PLAIN: `c${derived('${PLAIN:6:2}', v)}`,
      });
    },
  );
});

describe('text derived from a Secret-sourced variable by each substitution operator', () => {
  const rows = OPERATORS.map((row, i) => ({ ...row, key: rowKey(i) }));

  /** The field as shown: derived text long enough to search for is cut out, else all of it. */
  function shown(row: Row, text: string, marker: string): string {
    return text.length >= 8 ? written(row, marker) : marker;
  }

  it.each(rows)('is hidden for $name ($expr), at base and head, in `render`', (row) => {
    for (const side of ['base', 'head'] as const) {
      const v = side === 'base' ? base : head;
      const value = objectIn(side, 'ConfigMap', 'ops-secret').data?.[row.key];
      expect(value).toBe(shown(row, derived(row.expr, v), HIDDEN));
    }
  });

  it.each(rows)('is marked as changed for $name ($expr) in the diff', (row) => {
    const change = changeOf('ConfigMap', 'ops-secret');
    const [before, after] = [derived(row.expr, base), derived(row.expr, head)];
    expect(change.old?.data?.[row.key]).toBe(shown(row, before, HIDDEN));
    expect(change.new?.data?.[row.key]).toBe(
      shown(row, after, before === after ? HIDDEN : CHANGED),
    );
  });

  it.each(rows)('stays readable for $name over a ConfigMap value', (row) => {
    const expr = plainOf(row.expr);
    for (const side of ['base', 'head'] as const) {
      const v = side === 'base' ? base : head;
      const value = objectIn(side, 'ConfigMap', 'ops-plain').data?.[row.key];
      expect(String(value)).toBe(written(row, derived(expr, v)));
    }
    const change = changeOf('ConfigMap', 'ops-plain');
    expect(String(change.new?.data?.[row.key])).toBe(written(row, derived(expr, head)));
  });

  it('hides a key derived from the value, and keeps its value and the plain keys readable', () => {
    const same = derived('${DBPASS:6:2}', base) === derived('${DBPASS:6:2}', head);
    expect(objectIn('head', 'ConfigMap', 'ops-secret').data).toMatchObject({
      [HIDDEN]: 'derived key',
      visible: 'plain text',
    });
    expect(objectIn('head', 'ConfigMap', 'ops-plain').data).toMatchObject({
      [`key-${derived('${PLAIN:6:2}', head)}`]: 'derived key',
    });
    expect(changeOf('ConfigMap', 'ops-secret').new?.data).toMatchObject({
      [same ? HIDDEN : CHANGED]: 'derived key',
    });
  });
});

describe('a substituted object whose derived text cannot be placed exactly', () => {
  const secret = new Set(['DBPASS']);
  const on = { strict: true, always: false };
  const shown = (manifest: Record<string, unknown>, vars: Record<string, string>) => {
    const out = substituteTracked(manifest, vars, on, secret);
    return redactManifest(out.manifest, undefined, out.secret);
  };
  const config = (data: Record<string, unknown>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cfg', namespace: 'apps', labels: { team: 'web' } },
    data,
  });

  it('hides everything but its identity when the value turns into YAML structure', () => {
    expect(shown(config({ a: '${DBPASS}', b: 'kept' }), { DBPASS: '{x: y}' })).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'apps', labels: HIDDEN },
      data: HIDDEN,
    });
  });

  it('hides a number read from derived text', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: { replicas: '${#DBPASS}' },
    };
    expect(shown(deployment, { DBPASS: 'abc' })['spec']).toEqual({ replicas: HIDDEN });
  });

  it('keeps a default readable when it is not taken, and hides it when the Secret decides', () => {
    const data = { a: '${CONF:-${DBPASS}}', b: 'x${UNSET:-${DBPASS:0:1}}' };
    expect(shown(config(data), { CONF: 'visible', DBPASS: 'hunter22' })['data']).toEqual({
      a: 'visible',
      b: HIDDEN,
    });
    expect(shown(config(data), { CONF: '', DBPASS: 'hunter22' })['data']).toEqual({
      a: HIDDEN,
      b: HIDDEN,
    });
  });
});
