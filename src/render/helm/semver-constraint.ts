/**
 * Chart versions and version constraints as Flux reads them: the Masterminds/semver v3
 * rules that source-controller and helm use (loose versions such as `v1.2`, constraints
 * such as `>=1.2 <2`, `~1.2`, `^0.3`, `1.x`, `1.2 - 1.4`, `a || b`), with the `semver`
 * package doing only the ordering. npm's range syntax and prerelease rules differ from
 * Masterminds', so its ranges are not used.
 */
import { SemVer } from 'semver';

/** A parsed version; `semver` orders it, `original` is the text it came from. */
export interface Version {
  readonly semver: SemVer;
  readonly original: string;
}

const LOOSE_VERSION =
  /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$/;

/** Masterminds `NewVersion`: a leading `v` and missing minor or patch are allowed. */
export function parseVersion(text: string): Version | undefined {
  const m = LOOSE_VERSION.exec(text);
  if (!m) return undefined;
  const [, major = '0', minor, patch, pre, meta] = m;
  const core = [major, minor?.slice(1) ?? '0', patch?.slice(1) ?? '0'].map((n) =>
    String(Number(n)),
  );
  return build(`${core.join('.')}${pre ? `-${pre}` : ''}${meta ? `+${meta}` : ''}`, text);
}

/** Flux's `version.ParseVersion`: strict semver, except that a leading `v` is allowed. */
export function parseStrictVersion(text: string): Version | undefined {
  if (text !== text.trim()) return undefined;
  return build(text, text);
}

function build(canonical: string, original: string): Version | undefined {
  try {
    return { semver: new SemVer(canonical), original };
  } catch {
    return undefined;
  }
}

function prerelease(v: Version): string {
  return v.semver.prerelease.join('.');
}

/** Masterminds `SetMetadata(...).String()`: helm-controller's `version+digest` rule. */
export function withBuildMetadata(version: string, metadata: string): string | undefined {
  const v = parseVersion(version);
  if (!v || !/^[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*$/.test(metadata)) return undefined;
  const pre = prerelease(v);
  return `${v.semver.major}.${v.semver.minor}.${v.semver.patch}${pre ? `-${pre}` : ''}+${metadata}`;
}

// ---- constraints --------------------------------------------------------------------

const CV =
  String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?` +
  String.raw`(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?` +
  String.raw`(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const OPS = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const ONE = new RegExp(String.raw`^\s*(${OPS})\s*(${CV})\s*$`);
const RANGE = new RegExp(String.raw`\s*(${CV})\s+-\s+(${CV})\s*`, 'g');
const FIND = new RegExp(String.raw`(${OPS})\s*(${CV})`, 'g');
const VALID = new RegExp(
  String.raw`^(\s*(${OPS})\s*(${CV})\s*)((?:\s+|,\s*)(${OPS})\s*(${CV})\s*)*$`,
);
/** Constraints are repository input; long ones are refused before any regex runs. */
const MAX_CONSTRAINT_LENGTH = 256;

type Op = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'tilde' | 'caret';
const OP_NAMES: Record<string, Op> = {
  '': 'eq',
  '=': 'eq',
  '!=': 'ne',
  '>': 'gt',
  '<': 'lt',
  '>=': 'ge',
  '=>': 'ge',
  '<=': 'le',
  '=<': 'le',
  '~': 'tilde',
  '~>': 'tilde',
  '^': 'caret',
};

interface Comparator {
  op: Op;
  con: Version;
  /** Some part was a wildcard or missing (`1.x`, `1.2`, `*`). */
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

/** A parsed constraint: OR of ANDs of comparators. */
export class Constraint {
  private constructor(
    readonly text: string,
    private readonly groups: readonly (readonly Comparator[])[],
  ) {}

  /** Masterminds `NewConstraint`; undefined when the text is not a constraint. */
  static parse(text: string): Constraint | undefined {
    if (text.length > MAX_CONSTRAINT_LENGTH) return undefined;
    const groups: Comparator[][] = [];
    for (const segment of rewriteRange(text).split('||')) {
      if (!VALID.test(segment)) return undefined;
      const group: Comparator[] = [];
      for (const found of segment.match(FIND) ?? [segment]) {
        const comparator = parseComparator(found);
        if (!comparator) return undefined;
        group.push(comparator);
      }
      groups.push(group);
    }
    return new Constraint(text, groups);
  }

  check(v: Version): boolean {
    // A prerelease is admitted only by an AND group in which some comparator names a
    // prerelease (Masterminds v3.3 and later, which current Flux releases use).
    const isPre = prerelease(v) !== '';
    return this.groups.some(
      (group) =>
        (!isPre || group.some((c) => prerelease(c.con) !== '')) &&
        group.every((c) => satisfies(v, c)),
    );
  }
}

function rewriteRange(text: string): string {
  let out = text;
  for (const m of text.matchAll(RANGE))
    out = out.replace(m[0], `>= ${m[1] ?? ''}, <= ${m[11] ?? ''}`);
  return out;
}

const isX = (part: string | undefined): boolean => part === 'x' || part === 'X' || part === '*';

function parseComparator(text: string): Comparator | undefined {
  const m = ONE.exec(text);
  const op = m ? OP_NAMES[m[1] ?? ''] : undefined;
  if (!m || !op) return undefined;
  const major = m[3] ?? '';
  const minor = (m[4] ?? '').slice(1);
  const patch = (m[5] ?? '').slice(1);
  const pre = m[6] ?? '';
  let wanted = m[2] ?? '';
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major) || major === '') {
    wanted = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minor) || minor === '') {
    wanted = `${major}.0.0${pre}`;
    dirty = minorDirty = true;
  } else if (isX(patch) || patch === '') {
    wanted = `${major}.${minor}.0${pre}`;
    dirty = patchDirty = true;
  }
  const con = parseVersion(wanted);
  return con ? { op, con, dirty, minorDirty, patchDirty } : undefined;
}

const cmp = (a: Version, b: Version): number => a.semver.compare(b.semver);

function satisfies(v: Version, c: Comparator): boolean {
  switch (c.op) {
    case 'eq':
      return c.dirty ? tilde(v, c) : cmp(v, c.con) === 0;
    case 'ne':
      return notEqual(v, c);
    case 'gt':
      return greaterThan(v, c);
    case 'lt':
      return cmp(v, c.con) < 0;
    case 'ge':
      return cmp(v, c.con) >= 0;
    case 'le':
      return lessOrEqual(v, c);
    case 'tilde':
      return tilde(v, c);
    case 'caret':
      return caret(v, c);
  }
}

function notEqual(v: Version, c: Comparator): boolean {
  if (c.dirty) {
    const [a, b] = [v.semver, c.con.semver];
    if (b.major !== a.major) return true;
    if (b.minor !== a.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (b.patch !== a.patch && !c.patchDirty) return true;
    if (c.patchDirty) return a.comparePre(b) !== 0;
  }
  return cmp(v, c.con) !== 0;
}

function greaterThan(v: Version, c: Comparator): boolean {
  if (!c.dirty) return cmp(v, c.con) > 0;
  const [a, b] = [v.semver, c.con.semver];
  if (a.major !== b.major) return a.major > b.major;
  if (c.minorDirty) return false;
  if (c.patchDirty) return a.minor > b.minor;
  return cmp(v, c.con) > 0;
}

function lessOrEqual(v: Version, c: Comparator): boolean {
  if (!c.dirty) return cmp(v, c.con) <= 0;
  const [a, b] = [v.semver, c.con.semver];
  if (a.major > b.major) return false;
  return !(a.major === b.major && a.minor > b.minor && !c.minorDirty);
}

function tilde(v: Version, c: Comparator): boolean {
  if (cmp(v, c.con) < 0) return false;
  const [a, b] = [v.semver, c.con.semver];
  if (b.major === 0 && b.minor === 0 && b.patch === 0 && !c.minorDirty && !c.patchDirty) {
    return true;
  }
  if (a.major !== b.major) return false;
  return a.minor === b.minor || c.minorDirty;
}

function caret(v: Version, c: Comparator): boolean {
  if (cmp(v, c.con) < 0) return false;
  const [a, b] = [v.semver, c.con.semver];
  if (b.major > 0 || c.minorDirty) return a.major === b.major;
  if (a.major > 0) return false;
  if (b.minor > 0 || c.patchDirty) return a.minor === b.minor;
  if (a.minor > 0) return false;
  return a.patch === b.patch;
}

// ---- selection ----------------------------------------------------------------------

export interface VersionCandidate {
  version: string;
  /** RFC 3339 time the chart was packaged; orders equal versions, newest first. */
  created?: string | undefined;
}

export type Selection<T> = { kind: 'found'; pick: T } | { kind: 'none'; reason: string };

/**
 * source-controller's choice of a chart version from a repository index: an exact
 * string match first; else the highest version satisfying the constraint, where an
 * empty spec or `*` means the latest stable version. Versions that are not strict
 * semver are never picked by a constraint.
 */
export function selectVersion<T extends VersionCandidate>(
  candidates: readonly T[],
  spec: string,
): Selection<T> {
  if (spec !== '') {
    const exact = candidates.find((c) => c.version === spec);
    if (exact) return { kind: 'found', pick: exact };
  }
  const constraint = Constraint.parse(spec === '' ? '*' : spec);
  if (!constraint) return { kind: 'none', reason: `improper constraint: ${spec}` };
  let best: { pick: T; version: Version } | undefined;
  for (const candidate of candidates) {
    const version = parseStrictVersion(candidate.version);
    if (!version || !constraint.check(version)) continue;
    if (!best || isNewer(version, candidate, best.version, best.pick)) {
      best = { pick: candidate, version };
    }
  }
  return best
    ? { kind: 'found', pick: best.pick }
    : { kind: 'none', reason: `no version matching '${spec || '*'}'` };
}

function isNewer(v: Version, c: VersionCandidate, bestV: Version, best: VersionCandidate): boolean {
  const order = cmp(v, bestV);
  if (order !== 0) return order > 0;
  return Date.parse(c.created ?? '') > Date.parse(best.created ?? '');
}

/** Whether `version` (loosely parsed) satisfies `spec`; used for local dependencies. */
export function versionSatisfies(version: string, spec: string): boolean | 'invalid' {
  const constraint = Constraint.parse(spec);
  const v = parseVersion(version);
  if (!constraint || !v) return 'invalid';
  return constraint.check(v);
}

/** Two versions equal as Masterminds `Equal` (build metadata ignored). */
export function sameVersion(a: string, b: string): boolean {
  const [va, vb] = [parseVersion(a), parseVersion(b)];
  return va !== undefined && vb !== undefined && cmp(va, vb) === 0;
}
