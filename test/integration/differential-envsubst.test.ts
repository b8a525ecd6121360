/**
 * Post-build substitution against Flux's own code: every generated template is expanded by
 * fluxlens and by github.com/fluxcd/pkg/envsubst (envsubst-oracle, the version Flux's
 * kustomize-controller ships, called with the variable lookup kustomize-controller gives it),
 * and the two must agree byte for byte, or both fail. See test/differential/differential.ts
 * for the seed, the nightly-sized mode and replaying a failure.
 *
 * Known differences, kept out of the generated cases on purpose:
 * - fluxlens bounds one expansion (nesting depth 256, 10,000 references, 1 MiB of growth,
 *   src/render/envsubst/substitution-budget.ts) where Flux has no bound: a pull request
 *   could otherwise make the reviewer expand gigabytes. The generator stays far below them.
 * - Secret variables: fluxlens also keeps a marked copy of the text to hide their values
 *   (expandBytesMarked); the text itself must be Flux's, which is what is compared here.
 */
import { Buffer } from 'node:buffer';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SubstitutionError,
  expandBytesMarked,
  fromBytes,
  toBytes,
} from '../../src/render/envsubst/index.js';
import {
  type Outcome,
  differentialSettings,
  differentialTimeout,
  expectAgreement,
  outcomeOf,
} from '../differential/differential.js';
import { type SubstitutionCase, substitutionCase } from '../differential/envsubst-cases.js';
import { Oracle, locateOracle } from '../differential/oracle.js';

const CASES_PER_RUN = 2_000;

const located = locateOracle('envsubst-oracle');
const settings = differentialSettings(CASES_PER_RUN);

/** Bytes as text that shows what differs: printable ASCII as is, everything else escaped. */
function showBytes(bytes: Buffer): string {
  return JSON.stringify(bytes.toString('latin1')).replace(/[\u0080-\u00ff]/g, (c) => {
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

/** fluxlens, as substituteTracked calls it: byte strings, unset reads as undefined. */
function fluxlensAnswer(c: SubstitutionCase): Outcome {
  const secret = new Set(c.secret);
  return outcomeOf(
    () => {
      const { text } = expandBytesMarked(
        toBytes(c.template),
        (name) => {
          const key = fromBytes(name);
          const value = Object.hasOwn(c.vars, key) ? c.vars[key] : undefined;
          return value === undefined ? undefined : toBytes(value);
        },
        c.strict,
        { isSecret: (name) => secret.has(fromBytes(name)), open: '\u0001', close: '\u0002' },
      );
      return showBytes(Buffer.from(text, 'latin1'));
    },
    (error) => error instanceof SubstitutionError,
  );
}

if ('missing' in located && !located.required) {
  console.warn(`differential-envsubst: ${located.missing}; comparison with Flux skipped`);
}

describe("post-build substitution, against Flux's envsubst", () => {
  if ('missing' in located) {
    // Under CI the oracle was just built by scripts/install-tools: missing is a failure there.
    it.skipIf(!located.required)(`needs envsubst-oracle: ${located.missing}`, () => {
      throw new Error(located.missing);
    });
    return;
  }
  const oracle = new Oracle(located.binary);
  afterAll(() => oracle.close());

  /** Flux's answer, shown as fluxlensAnswer shows ours. */
  async function fluxAnswer(c: SubstitutionCase): Promise<Outcome> {
    const flux = await oracle.ask({ template: c.template, vars: c.vars, strict: c.strict });
    if (!flux.ok) return { ok: false, error: flux.panic ? `Go panic: ${flux.error}` : flux.error };
    return { ok: true, value: showBytes(Buffer.from(String(flux.result), 'base64')) };
  }

  // The oracle is Flux's dialect and both answers are read right: a few cases whose answer
  // is known (undefined: an error).
  it.each<[string, Record<string, string>, boolean, string | undefined]>([
    ['${A:-fallback}', {}, false, 'fallback'],
    ['${A}', {}, true, undefined],
    ['$${A}', { A: 'x' }, false, '${A}'],
    ['${#B}', { B: '日本' }, false, '6'],
    ['${B:1:2}', { B: 'héllo' }, false, 'é'],
    // Go adds offset and length as int64: the sum wraps negative and slicing panics, which
    // kustomize-controller reports as a failed reconciliation.
    ['${A:1:9223372036854775807}', { A: 'abc' }, false, undefined],
  ])(
    'expands %j with %j (strict: %s) to the known answer, on both sides',
    async (t, vars, strict, want) => {
      const c: SubstitutionCase = { template: t, vars, strict, secret: [] };
      const shown = (o: Outcome): string => (o.ok ? o.value : 'an error');
      const expected = want === undefined ? 'an error' : showBytes(Buffer.from(want));
      expect(shown(await fluxAnswer(c))).toBe(expected);
      expect(shown(fluxlensAnswer(c))).toBe(expected);
    },
  );

  it(
    'expands every generated template exactly as Flux does, or fails where Flux fails',
    async () => {
      await expectAgreement(
        {
          subject: 'post-build substitution',
          testFile: 'test/integration/differential-envsubst.test.ts',
          arbitrary: substitutionCase,
          answer: async (c) => ({ fluxlens: fluxlensAnswer(c), flux: await fluxAnswer(c) }),
          bothKindsFrom: 500,
        },
        settings,
      );
    },
    differentialTimeout(settings),
  );
});
