/**
 * The diff pairs a kustomize-generated ConfigMap or Secret across a new hash suffix; rules
 * then read the base object under its old name, as for any object that changed.
 */
import { describe, expect, it } from 'vitest';
import { diffClusters } from '../../../src/diff/index.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import { rawPair, riskContext } from '../../../src/risk/kit/index.js';
import { cluster, obj } from './scenario.js';

describe('a generated ConfigMap renamed by its hash', () => {
  it('gives rules the base manifest under its old name', () => {
    const before = obj('v1', 'ConfigMap', 'app-config-2c5mtg89bk', 'web', { data: { a: '1' } });
    const after = obj('v1', 'ConfigMap', 'app-config-h6d7fk4t2m', 'web', { data: { a: '2' } });
    const base = cluster([before]);
    const head = cluster([after]);
    const diff = diffClusters(base, head, { cluster: 'home', normalize: DEFAULT_POLICY.normalize });
    const ctx = riskContext({ name: 'home', diff, base, head }, DEFAULT_POLICY);
    const [change] = diff.changes;
    expect(change?.status).toBe('changed');
    expect(rawPair(ctx, change!)).toEqual({ base: before, head: after });
  });
});
