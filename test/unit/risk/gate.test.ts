import { describe, expect, it } from 'vitest';
import type { Finding, Level } from '../../../src/model/finding.js';
import { gate } from '../../../src/risk/gate.js';

describe('the gate', () => {
  const finding = (level: Level): Finding => ({
    rule: 'some-rule',
    level,
    cluster: '.',
    resource: { kind: 'ConfigMap', namespace: 'apps', name: 'x' },
    message: 'changes',
  });

  it.each([
    [['danger'], 'danger', true],
    [['caution'], 'danger', false],
    [['caution'], 'caution', true],
    [['danger'], 'caution', true],
    [['info'], 'info', true],
    [['info', 'caution'], 'danger', false],
    [[], 'info', false],
    [['danger'], 'never', false],
  ] as const)('findings %j with failOn %s fail: %s', (levels, failOn, fails) => {
    expect(gate(levels.map(finding), failOn).failed).toBe(fails);
  });
});
