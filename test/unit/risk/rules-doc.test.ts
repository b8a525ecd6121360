/**
 * docs/rules.md documents every rule in one table; the table and the registry agree. The
 * rule and policy references (docs/rules.md, docs/policy.md, the README) name no rule that
 * does not exist, and their policy examples parse.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { USAGE } from '../../../src/cli/usage.js';
import { ERROR_CODES } from '../../../src/errors.js';
import { parsePolicy } from '../../../src/policy/index.js';
import { EngineName } from '../../../src/render/index.js';
import { FAMILIES, RULE_IDS, RULES } from '../../../src/risk/registry.js';

const read = (path: string): string =>
  readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

const doc = read('docs/rules.md');
/** Each reference, with how many policy examples it shows. */
const REFERENCES = [
  ['docs/rules.md', 0],
  ['docs/policy.md', 1],
  ['README.md', 1],
] as const;
const ROW = /^\|\s*`([^`]+)`\s*\|\s*([a-z]+)\s*\|\s*([a-z-]+)\s*\|(.*)\|\s*$/;

function tableRows(): Array<{ id: string; level: string; family: string }> {
  return doc
    .split('\n')
    .map((line) => ROW.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ id: m[1]!, level: m[2]!, family: m[3]! }));
}

describe('docs/rules.md', () => {
  it('has exactly one table of rules', () => {
    expect(doc.split('\n').filter((line) => /^\|\s*Rule\s*\|/.test(line))).toHaveLength(1);
  });

  it('lists every registered rule with its id, default level and family, in order', () => {
    expect(tableRows()).toEqual(RULES.map((r) => ({ id: r.id, level: r.level, family: r.family })));
  });

  it('uses stable kebab-case ids, each once', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
  });

  it('gives every rule a one-line description and a headline naming the resource', () => {
    for (const rule of RULES) {
      expect(rule.description).not.toMatch(/\n/);
      expect(rule.headline).toContain('{resource}');
    }
  });
});

/** The input and output names action.yml declares. */
function actionNames(): string[] {
  const action = parse(read('action.yml')) as Record<string, Record<string, unknown> | undefined>;
  return [...Object.keys(action['inputs'] ?? {}), ...Object.keys(action['outputs'] ?? {})];
}

/**
 * Kebab-case words the references may write in backticks that are not rule ids: family
 * names, error codes, engine names, the CLI's flags and the GitHub Action's inputs and
 * outputs.
 */
const NOT_RULES = new Set([
  ...FAMILIES.map((f) => f.name),
  ...EngineName.options,
  ...Object.keys(ERROR_CODES),
  ...[...USAGE.matchAll(/--([a-z][a-z-]+)/g)].map((m) => m[1] ?? ''),
  ...actionNames(),
]);

/** Every code span of the form `a-b`: how the references write a rule id. */
function kebabCodeSpans(text: string): string[] {
  return [...text.matchAll(/`([a-z0-9]+(?:-[a-z0-9]+)+)`/g)].map((m) => m[1] ?? '');
}

/** The fenced YAML blocks that are policy files: those with a key of .fluxlens.yaml. */
function policyExamples(text: string): string[] {
  return [...text.matchAll(/```yaml\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .filter((block) => /^(rules|ignore|failOn|clusters|normalize|publicGateways):/m.test(block));
}

describe.each(REFERENCES)('the rule and policy reference %s', (path, examples) => {
  const text = read(path);

  it('names no rule that is not registered', () => {
    const unknown = kebabCodeSpans(text).filter((w) => !RULE_IDS.has(w) && !NOT_RULES.has(w));
    expect(unknown).toEqual([]);
  });

  it('gives policy examples that parse with the registered rules', () => {
    const blocks = policyExamples(text);
    expect(blocks).toHaveLength(examples);
    for (const block of blocks) {
      expect(() => parsePolicy(block, RULE_IDS)).not.toThrow();
    }
  });
});
