import { describe, expect, it } from 'vitest';
import { isIgnored, policyLevel } from '../../../src/risk/apply-policy.js';
import { DEFAULT_POLICY } from '../../../src/policy/types.js';
import type { Finding } from '../../../src/model/finding.js';

const finding = (resource: Finding['resource'], rule = 'rbac-wildcard'): Finding => ({
  rule,
  level: 'danger',
  cluster: 'home',
  resource,
  message: 'x',
});
const role = finding({ kind: 'ClusterRole', name: 'ops' });
const deploy = finding({ kind: 'Deployment', namespace: 'web', name: 'api' }, 'image-unpinned');

describe('policy ignores', () => {
  it.each<[string, Finding, { rule: string; resource: string }, boolean]>([
    [
      'match a rule and an exact resource',
      deploy,
      { rule: 'image-unpinned', resource: 'Deployment/web/api' },
      true,
    ],
    ['match any rule with *', deploy, { rule: '*', resource: 'Deployment/web/api' }, true],
    ['match any resource with *', deploy, { rule: 'image-unpinned', resource: '*' }, true],
    ['match a name glob', deploy, { rule: 'image-unpinned', resource: 'Deployment/web/a*' }, true],
    [
      'match every namespace with Kind/*',
      deploy,
      { rule: 'image-unpinned', resource: 'Deployment/*' },
      true,
    ],
    [
      'match a cluster-scoped resource as Kind//name',
      role,
      { rule: 'rbac-wildcard', resource: 'ClusterRole//ops' },
      true,
    ],
    [
      'match a cluster-scoped resource as Kind/name',
      role,
      { rule: 'rbac-wildcard', resource: 'ClusterRole/ops' },
      true,
    ],
    [
      'not match another namespace',
      deploy,
      { rule: 'image-unpinned', resource: 'Deployment/dev/api' },
      false,
    ],
    [
      'not match another kind',
      deploy,
      { rule: 'image-unpinned', resource: 'StatefulSet/web/api' },
      false,
    ],
    ['not match another rule', deploy, { rule: 'rbac-wildcard', resource: '*' }, false],
    [
      'not read regex characters in a glob',
      deploy,
      { rule: 'image-unpinned', resource: 'Deployment/web/.*' },
      false,
    ],
  ])('ignores %s', (_name, f, ignore, expected) => {
    expect(isIgnored(f, [ignore])).toBe(expected);
  });
});

describe('policy levels', () => {
  it.each<[string, Record<string, 'info' | 'caution' | 'danger' | 'off'>, string | undefined]>([
    ['keeps the default level', {}, 'danger'],
    ['takes an override', { 'rbac-wildcard': 'caution' }, 'caution'],
    ['turns a rule off', { 'rbac-wildcard': 'off' }, undefined],
    ['ignores overrides of other rules', { 'image-unpinned': 'off' }, 'danger'],
  ])('%s', (_name, levels, expected) => {
    expect(policyLevel({ ...DEFAULT_POLICY, levels }, 'rbac-wildcard', 'danger')).toBe(expected);
  });

  it('does not read inherited properties as overrides', () => {
    expect(policyLevel(DEFAULT_POLICY, 'constructor', 'info')).toBe('info');
  });
});
