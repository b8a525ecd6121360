/** docs/rules.md documents every rule in one table; the table and the registry agree. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RULES } from '../../../src/risk/registry.js';

const doc = readFileSync(new URL('../../../docs/rules.md', import.meta.url), 'utf8');
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
