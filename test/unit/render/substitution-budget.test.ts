/**
 * Issue 11, point 11: substitution that expands without end. A variable that grows to
 * gigabytes through nested replacements, or is read ten thousand times, fails its object
 * with fluxlens's bound while the expansion runs, before the string past it is made.
 */
import { describe, expect, it } from 'vitest';
import { SubstitutionError, envsubst } from '../../../src/render/envsubst/index.js';
import {
  MAX_GROWTH_BYTES,
  MAX_REFERENCES,
} from '../../../src/render/envsubst/substitution-budget.js';
import { substituteManifest } from '../../../src/render/builtin/substitute.js';

const A = 'x'.repeat(1000);
const vars: Record<string, string> = { A, ONE: '1', BIG: 'y'.repeat(MAX_GROWTH_BYTES / 2) };
const expand = (template: string): string =>
  envsubst(template, (name) => vars[name], { strict: true });

function refused(template: string): SubstitutionError {
  try {
    expand(template);
  } catch (err) {
    if (err instanceof SubstitutionError) return err;
    throw err;
  }
  throw new Error('expanded without an error');
}

describe('the bounds of one expansion', () => {
  it.each([
    ['a replacement of every character by a kilobyte, twice over', '${A//x/${A//x/${A}}}'],
    ['a replacement around every character', '${BIG//${EMPTY:-}/${BIG}}'],
    ['a default that joins a large variable many times', `\${UNSET:-${'${BIG}'.repeat(4)}}`],
    ['a large variable repeated at the top level', '${BIG}'.repeat(4)],
  ])('refuses %s as growing the object by more than 1 MiB', (_, template) => {
    const err = refused(template);
    expect(err.message).toBe('expansion grows the object by more than 1 MiB');
    expect(err.code).toBe('limit-exceeded');
  });

  it('expands what stays within 1 MiB of growth', () => {
    expect(expand('${A//x/${A}}')).toHaveLength(1000 * 1000);
    expect(expand('${BIG}${BIG}')).toHaveLength(MAX_GROWTH_BYTES);
  });

  it(`refuses more than ${MAX_REFERENCES} variable references, nested ones included`, () => {
    expect(expand('${ONE}'.repeat(MAX_REFERENCES))).toBe('1'.repeat(MAX_REFERENCES));
    const err = refused('${ONE}'.repeat(MAX_REFERENCES - 1) + '${UNSET:-${ONE}}');
    expect(err.message).toBe('more than 10000 variable references in one object');
    expect(err.code).toBe('limit-exceeded');
  });

  it('names the object whose substitution passed the bound', () => {
    const manifest = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'laughs' },
      data: { a: '${A//x/${A//x/${A}}}' },
    };
    expect(() => substituteManifest(manifest, { A }, { strict: true, always: false })).toThrow(
      "post build failed for 'ConfigMap/laughs': envsubst error: variable substitution failed: expansion grows the object by more than 1 MiB",
    );
  });
});
