/**
 * HelmRelease values composition against Flux's own code: for every generated HelmRelease
 * and cluster, fluxlens's composeValues and fluxcd/pkg/chartutil's ChartValuesFromReferences
 * (values-oracle: the version helm-controller ships, called as its reconciler calls it, with
 * a fake Kubernetes client holding the ConfigMaps and Secrets) must give the same values, or
 * both fail. See test/differential/differential.ts for the seed, the nightly-sized mode and
 * replaying a failure.
 *
 * What "the same" means, and the known differences:
 * - Values are compared as the JSON fluxlens hands to `helm template` (--values values.json):
 *   Flux's as Go's encoding/json writes them, ours as JSON.stringify does. Numbers are
 *   therefore compared as doubles; Flux keeps a targetPath's `--set` integer as an int64,
 *   which Helm prints as an integer where a values file's number prints as a float
 *   (12345678 against 1.2345678e+07). That is a difference of the handoff to helm, not of
 *   composition, and this comparison cannot see it.
 * - The HelmRelease CRD refuses a valuesKey or targetPath outside its patterns, so Flux's
 *   code never sees one: such a case is Flux's failure, and fluxlens must fail it too
 *   (fluxlens checks the CRD's rules itself, as it reads HelmReleases from files).
 * - fluxlens reads a SOPS-encrypted Secret's values as a placeholder and leaves them out;
 *   the generator never writes that placeholder.
 * - go-yaml v2 reads a document that opens with a flow collection up to its end and ignores
 *   the rest (`{a: 1} b`); fluxlens fails such a text. The generator leaves them out
 *   (values-cases.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ZodError } from 'zod';
import { HelmRelease, composeValues } from '../../src/render/helm/index.js';
import { FluxlensError } from '../../src/errors.js';
import {
  type Outcome,
  differentialSettings,
  differentialTimeout,
  expectAgreement,
  outcomeOf,
} from '../differential/differential.js';
import { Oracle, locateOracle } from '../differential/oracle.js';
import { NAMESPACE, type ValuesCase, valuesCase } from '../differential/values-cases.js';

const CASES_PER_RUN = 500;

const located = locateOracle('values-oracle');
const settings = differentialSettings(CASES_PER_RUN);

/**
 * The HelmRelease CRD's validation of spec.valuesFrom[] (fluxcd/pkg/apis/meta v1.30.2
 * ValuesReference, kubebuilder markers), as the API server applies it.
 */
const CRD_RULES = {
  valuesKey: { pattern: /^[-._a-zA-Z0-9]+$/, maxLength: 253 },
  targetPath: { pattern: /^([a-zA-Z0-9_\-.\\/]|\[[0-9]{1,5}\])+$/, maxLength: 250 },
} as const;

function crdViolation(c: ValuesCase): string | undefined {
  for (const [index, ref] of (c.helmRelease.spec.valuesFrom ?? []).entries()) {
    for (const field of ['valuesKey', 'targetPath'] as const) {
      const value = ref[field];
      const rule = CRD_RULES[field];
      if (value === undefined) continue;
      if (value.length > rule.maxLength || !rule.pattern.test(value)) {
        return `the API server rejects spec.valuesFrom[${index}].${field} ${JSON.stringify(value)}`;
      }
    }
  }
  return undefined;
}

/** JSON with keys in order, so that two trees compare as text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** fluxlens, from reading the HelmRelease (a release it cannot read fails) to values.json. */
function fluxlensAnswer(c: ValuesCase): Outcome {
  const lookup = (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) =>
    c.objects.find((o) => o.kind === kind && o.namespace === namespace && o.name === name)?.data;
  return outcomeOf(
    () => {
      const values = composeValues(HelmRelease.parse(c.helmRelease), lookup, 'default');
      // Through JSON as template.ts writes values.json, then read back as Flux's answer is.
      return canonical(JSON.parse(JSON.stringify(values)));
    },
    (error) => error instanceof FluxlensError || error instanceof ZodError,
  );
}

if ('missing' in located && !located.required) {
  console.warn(`differential-values: ${located.missing}; comparison with Flux skipped`);
}

describe("HelmRelease values composition, against Flux's chartutil", () => {
  if ('missing' in located) {
    // Under CI the oracle was just built by scripts/install-tools: missing is a failure there.
    it.skipIf(!located.required)(`needs values-oracle: ${located.missing}`, () => {
      throw new Error(located.missing);
    });
    return;
  }
  const oracle = new Oracle(located.binary);
  afterAll(() => oracle.close());

  async function fluxAnswer(c: ValuesCase): Promise<Outcome> {
    const rejected = crdViolation(c);
    if (rejected !== undefined) return { ok: false, error: rejected };
    const flux = await oracle.ask(c);
    if (!flux.ok) return { ok: false, error: flux.panic ? `Go panic: ${flux.error}` : flux.error };
    return { ok: true, value: canonical(flux.result) };
  }

  const release = (
    spec: Partial<ValuesCase['helmRelease']['spec']>,
    objects: ValuesCase['objects'],
  ): ValuesCase => ({
    helmRelease: {
      apiVersion: 'helm.toolkit.fluxcd.io/v2',
      kind: 'HelmRelease',
      metadata: { name: 'app', namespace: NAMESPACE },
      spec: {
        chart: { spec: { chart: 'app', sourceRef: { kind: 'HelmRepository', name: 'charts' } } },
        ...spec,
      },
    },
    objects,
  });
  const configMap = (data: Record<string, string>) => ({
    kind: 'ConfigMap' as const,
    namespace: NAMESPACE,
    name: 'shared',
    data,
  });

  // The oracle is Flux's code and both answers are read right: a few cases whose answer is
  // known (undefined: an error).
  it.each<[string, ValuesCase, unknown]>([
    [
      'spec.values over a referenced values.yaml',
      release({ values: { a: 1 }, valuesFrom: [{ kind: 'ConfigMap', name: 'shared' }] }, [
        configMap({ 'values.yaml': 'a: 0\nb: 2' }),
      ]),
      { a: 1, b: 2 },
    ],
    [
      'a targetPath, typed as --set types it',
      release(
        {
          valuesFrom: [
            { kind: 'ConfigMap', name: 'shared', valuesKey: 'n', targetPath: 'x.list[1]' },
          ],
        },
        [configMap({ n: '5' })],
      ),
      { x: { list: [null, 5] } },
    ],
    [
      'a missing optional reference',
      release({ valuesFrom: [{ kind: 'Secret', name: 'shared', optional: true }] }, []),
      {},
    ],
    [
      'a missing required reference',
      release({ valuesFrom: [{ kind: 'Secret', name: 'shared' }] }, []),
      undefined,
    ],
    // Chart values may use any key: these two are plain data to Go.
    [
      'spec.values with a __proto__ key',
      release({ values: { ['__proto__']: { a: 1 } } }, []),
      { ['__proto__']: { a: 1 } },
    ],
    [
      'spec.values with a constructor key',
      release({ values: { constructor: 1 } }, []),
      { constructor: 1 },
    ],
    // go-yaml v2: no line break after a block scalar's last line at the end of the input.
    [
      'a block scalar at the end of values.yaml',
      release({ valuesFrom: [{ kind: 'ConfigMap', name: 'shared' }] }, [
        configMap({ 'values.yaml': 'a: |\n  line' }),
      ]),
      { a: 'line' },
    ],
    // go-yaml v2: `.` is a string, not a float.
    [
      'a dot as a value',
      release({ valuesFrom: [{ kind: 'ConfigMap', name: 'shared' }] }, [
        configMap({ 'values.yaml': 'a: .' }),
      ]),
      { a: '.' },
    ],
  ])('composes %s to the known values, on both sides', async (_name, c, want) => {
    const shown = (o: Outcome): string => (o.ok ? o.value : 'an error');
    const expected = want === undefined ? 'an error' : canonical(want);
    expect(shown(await fluxAnswer(c))).toBe(expected);
    expect(shown(fluxlensAnswer(c))).toBe(expected);
  });

  it(
    'composes the values of every generated HelmRelease exactly as Flux does, or fails where Flux fails',
    async () => {
      await expectAgreement(
        {
          subject: 'values composition',
          testFile: 'test/integration/differential-values.test.ts',
          arbitrary: valuesCase,
          answer: async (c) => ({ fluxlens: fluxlensAnswer(c), flux: await fluxAnswer(c) }),
          bothKindsFrom: 200,
        },
        settings,
      );
    },
    differentialTimeout(settings),
  );
});
