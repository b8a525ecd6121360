import { describe, expect, it } from 'vitest';
import type { ProducerRef } from '../../../src/model/render.js';
import { evaluate, fired, obj, place, type Scenario } from './scenario.js';

const cms = (count: number, producers = 1) =>
  Array.from({ length: count }, (_, i) => {
    const producer: ProducerRef = {
      kind: 'Kustomization',
      namespace: 'flux-system',
      name: `app-${i % producers}`,
    };
    return place(obj('v1', 'ConfigMap', `cm-${i}`, 'web', { data: { a: '1' } }), { producer });
  });

describe('breadth', () => {
  it.each<[string, Scenario, string[]]>([
    ['flags 60 changed objects', { base: [], head: cms(60) }, ['wide-change']],
    ['stays quiet at 59 changed objects', { base: [], head: cms(59) }, []],
    ['flags changes across 10 producers', { base: [], head: cms(10, 10) }, ['wide-change']],
    ['stays quiet across 9 producers', { base: [], head: cms(9, 9) }, []],
  ])('%s', (_name, scenario, expected) => {
    expect(fired(scenario, 'breadth')).toEqual(expected);
  });

  it('reports breadth on the cluster', () => {
    const [finding] = evaluate({ base: [], head: cms(60, 2) }).filter(
      (f) => f.rule === 'wide-change',
    );
    expect(finding).toEqual({
      rule: 'wide-change',
      level: 'caution',
      cluster: 'home',
      resource: { kind: 'Cluster', name: 'home' },
      message: expect.stringContaining('60 objects across 2 producers in cluster home'),
    });
  });
});
