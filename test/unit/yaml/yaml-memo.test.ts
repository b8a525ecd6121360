import { describe, expect, it } from 'vitest';
import { parseDocuments } from '../../../src/yaml/yaml.js';
import { parseFileDocuments } from '../../../src/yaml/yaml-memo.js';

const text = (name: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n---\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

describe('parsing a repository file seen before', () => {
  it('gives what parsing it again gives, documents, lines and errors alike', () => {
    for (const t of [text('memo-same'), 'a: [1\n', 'kind: A\n---\nb: *missing\n']) {
      const first = parseFileDocuments(t);
      expect(parseFileDocuments(t)).toEqual(parseDocuments(t));
      expect(first).toEqual(parseDocuments(t));
    }
  });

  it('gives every caller its own objects: a change by one never reaches the next', () => {
    const t = text('memo-mutated');
    const first = parseFileDocuments(t);
    const metadata = first.documents[0]?.manifest['metadata'] as Record<string, unknown>;
    metadata['namespace'] = 'changed-by-a-caller';
    const second = parseFileDocuments(t);
    second.documents.pop();
    const third = parseFileDocuments(t);
    expect(third.documents).toHaveLength(2);
    expect(third.documents[0]?.manifest['metadata']).toEqual({ name: 'memo-mutated' });
    expect(third.documents[0]?.manifest).not.toBe(second.documents[0]?.manifest);
  });

  it('keeps the bounds: a stream past them is refused from the memo too', () => {
    // Billion laughs: each level lists the one before nine times.
    const levels = ['l0: &l0 [x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 10; i++)
      levels.push(
        `l${i}: &l${i} [${Array(9)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const bomb = `${levels.join('\n')}\n`;
    const first = parseFileDocuments(bomb);
    expect(first.overLimit).toBe(true);
    expect(parseFileDocuments(bomb)).toEqual(first);
  });
});
