/**
 * Chart version rules as Flux applies them (Masterminds/semver v3 through
 * source-controller and helm-controller): which versions a constraint admits, which
 * version a repository index yields, and the version+digest helm-controller records.
 */
import { describe, expect, it } from 'vitest';
import {
  Constraint,
  parseStrictVersion,
  parseVersion,
  selectVersion,
  versionSatisfies,
  withBuildMetadata,
} from '../../../src/render/helm/semver-constraint.js';

function admits(constraint: string, version: string): boolean {
  const c = Constraint.parse(constraint);
  const v = parseVersion(version);
  if (!c || !v) throw new Error(`bad row: ${constraint} / ${version}`);
  return c.check(v);
}

describe('a version constraint', () => {
  it.each([
    ['=2.0.0', '2.0.0', true],
    ['=2.0.0', '1.2.3', false],
    ['2.0', '2.0.5', true],
    ['2', '2.3.4', true],
    ['2', '3.0.0', false],
    ['!=4.1', '4.1.0', false],
    ['!=4.1', '5.1.0', true],
    ['!=4.x', '4.1.0', false],
    ['!=4.1.x', '4.2.0', true],
    ['>1.1', '1.1.5', false],
    ['>1.1', '1.2.0', true],
    ['>11', '11.1.0', false],
    ['>11', '12.0.0', true],
    ['>=1.2 <2', '1.2.0', true],
    ['>=1.2 <2', '1.9.9', true],
    ['>=1.2 <2', '2.0.0', false],
    ['>=1.2 <2', '1.1.9', false],
    ['>=1.2, <2', '1.5.0', true],
    ['>= 1.2 , < 2', '2.0.1', false],
    ['=>1.2.0', '1.2.0', true],
    ['=<1.2.0', '1.2.1', false],
    ['<=1.2', '1.2.9', true],
    ['<=1.2', '1.3.0', false],
    ['<=1', '1.9.9', true],
    ['<=1', '2.0.0', false],
    ['~1.2.3', '1.2.4', true],
    ['~1.2.3', '1.3.0', false],
    ['~1', '1.9.0', true],
    ['~1', '2.0.0', false],
    ['~1.x', '1.9.0', true],
    ['~>1.2', '1.2.9', true],
    ['~>1.2', '1.3.0', false],
    ['~0.0.0', '5.0.0', true],
    ['^1.2.3', '1.8.0', true],
    ['^1.2.3', '2.0.0', false],
    ['^1.2.3', '1.2.2', false],
    ['^0.2.3', '0.2.9', true],
    ['^0.2.3', '0.3.0', false],
    ['^0.0.3', '0.0.3', true],
    ['^0.0.3', '0.0.4', false],
    ['^0', '0.9.0', true],
    ['^0', '1.0.0', false],
    ['^0.0', '0.0.9', true],
    ['^0.0', '0.1.0', false],
    ['1.x', '1.9.9', true],
    ['1.x', '2.0.0', false],
    ['v1.2.x', '1.2.7', true],
    ['1.2 - 1.4.5', '1.4.5', true],
    ['1.2 - 1.4.5', '1.4.6', false],
    ['1.2 - 1.4.5', '1.2.0', true],
    ['1.2 - 1.4.5', '1.1.9', false],
    ['<1.0.0 || >=2', '0.5.0', true],
    ['<1.0.0 || >=2', '1.5.0', false],
    ['<1.0.0 || >=2', '2.1.0', true],
    ['*', '0.0.1', true],
    ['*', '1.0.0-rc.1', false],
    ['>=1.2', '1.5.0-beta', false],
    ['>1.0.0-alpha', '1.0.0-beta', true],
    ['>=1.2.3-alpha', '1.5.0-beta', true],
    ['>=1.3.0-rc.0 <2', '1.3.0-rc.1', true],
    ['>=1.0.0 || >=1.3.0-rc.0', '1.4.0-rc.1', true],
    ['>=1.0.0 || <2.0.0-0', '0.1.0-rc.1', true],
    ['>=1.0.0 <2', '1.4.0-rc.1', false],
    ['>=1.0.0 <2.0.0-0', '1.9.0', true],
    ['1.2.3', '1.2.3+build.5', true],
  ])('%s admits %s: %s', (constraint, version, expected) => {
    expect(admits(constraint, version)).toBe(expected);
  });

  it.each(['not-a-version', '>= 1.2 <', '', '1.2 ||', '>>1', '1.2.3.4', '~'.repeat(300)])(
    'refuses %j',
    (text) => {
      expect(Constraint.parse(text)).toBeUndefined();
    },
  );

  it('checks a local dependency version and reports an unusable constraint', () => {
    expect(versionSatisfies('1.4.0', '>=1.0.0 <2')).toBe(true);
    expect(versionSatisfies('2.0.0', '>=1.0.0 <2')).toBe(false);
    expect(versionSatisfies('1.0.0', '')).toBe('invalid');
  });
});

describe('version parsing', () => {
  it.each([
    ['v1.2', '1.2.0'],
    ['1', '1.0.0'],
    ['01.2.3', '1.2.3'],
    ['1.2.3-rc.1+meta', '1.2.3-rc.1'],
    ['1.2.3.4', undefined],
    ['1.2.3-01', undefined],
    ['latest', undefined],
  ])('reads %s loosely as %s', (text, expected) => {
    expect(parseVersion(text)?.semver.version).toBe(expected);
  });

  it.each([
    ['1.2.3', true],
    ['v1.2.3', true],
    ['1.2', false],
    ['01.2.3', false],
    [' 1.2.3', false],
  ])('accepts %j as a strict version: %s', (text, expected) => {
    expect(parseStrictVersion(text) !== undefined).toBe(expected);
  });
});

describe('choosing a chart version from an index', () => {
  const index = [
    { version: '1.0.0' },
    { version: '1.2.0' },
    { version: '1.3.0-rc.1' },
    { version: '2.0.0' },
    { version: 'v2.1.0-beta' },
    { version: 'not-semver' },
    { version: '1.5' },
  ];

  it.each([
    ['', '2.0.0'],
    ['*', '2.0.0'],
    ['>=1.2 <2', '1.2.0'],
    ['~1.2', '1.2.0'],
    ['^1', '1.2.0'],
    ['1.x', '1.2.0'],
    ['>=1.3.0-rc.0 <2', '1.3.0-rc.1'],
    ['>=2.1.0-alpha', 'v2.1.0-beta'],
    ['1.0.0', '1.0.0'],
    ['1.5', '1.5'],
    ['not-semver', 'not-semver'],
    ['<1.0.0 || >=2', '2.0.0'],
  ])('picks for %j the version %s', (spec, expected) => {
    const selection = selectVersion(index, spec);
    expect(selection.kind === 'found' && selection.pick.version).toBe(expected);
  });

  it.each([
    ['>=3', "no version matching '>=3'"],
    ['garbage!!', 'improper constraint: garbage!!'],
  ])('finds nothing for %j', (spec, reason) => {
    expect(selectVersion(index, spec)).toEqual({ kind: 'none', reason });
  });

  it('prefers the newest package among equal versions', () => {
    const entries = [
      { version: '1.0.0+a', created: '2024-01-01T00:00:00Z', id: 'old' },
      { version: '1.0.0+b', created: '2024-06-01T00:00:00.123456789Z', id: 'new' },
    ];
    const selection = selectVersion(entries, '^1');
    expect(selection.kind === 'found' && selection.pick.id).toBe('new');
  });
});

describe('the version helm-controller records for an OCIRepository chart', () => {
  it.each([
    ['1.2.3', 'abcdef123456', '1.2.3+abcdef123456'],
    ['1.2.3+old', 'abcdef123456', '1.2.3+abcdef123456'],
    ['v1.2', 'abcdef123456', '1.2.0+abcdef123456'],
    ['1.0.0-rc.1', 'abcdef123456', '1.0.0-rc.1+abcdef123456'],
    ['nope', 'abcdef123456', undefined],
  ])('%s with digest %s is %s', (version, digest, expected) => {
    expect(withBuildMetadata(version, digest)).toBe(expected);
  });
});
