/**
 * The flags `render` and `diff` share, and the one place they become RenderOptions: the
 * CLI maps kebab-case flags to the camelCase options a job payload carries, nothing more.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, posix, relative, sep } from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { UsageError } from '../errors.js';
import { repositoryPath } from '../model/index.js';
import {
  DEFAULT_ENGINE,
  EngineName,
  parseSourceMapping,
  type ChartNetwork,
  type RenderOptions,
  type SourceMapping,
} from '../render/index.js';

/** parseArgs option specs of the flags that decide how a repository renders. */
export const RENDER_OPTIONS = {
  engine: { type: 'string', default: DEFAULT_ENGINE },
  source: { type: 'string', multiple: true, default: [] },
  'repo-url': { type: 'string' },
  'lenient-substitution': { type: 'boolean', default: false },
  'allow-remote-bases': { type: 'boolean', default: false },
  'enable-exec-plugins': { type: 'boolean', default: false },
  'skip-helm': { type: 'boolean', default: false },
  offline: { type: 'boolean', default: false },
  'skip-crds': { type: 'boolean', default: false },
  'kube-version': { type: 'string' },
  'api-versions': { type: 'string', short: 'a', multiple: true, default: [] },
  'is-upgrade': { type: 'boolean', default: false },
  'no-cache': { type: 'boolean', default: false },
  'retry-unavailable-charts': { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} satisfies NonNullable<ParseArgsConfig['options']>;

export interface RenderFlags {
  engine: string;
  source: string[];
  'lenient-substitution': boolean;
  'allow-remote-bases': boolean;
  'enable-exec-plugins': boolean;
  'skip-helm': boolean;
  offline: boolean;
  'skip-crds': boolean;
  'kube-version'?: string | undefined;
  'api-versions': string[];
  'is-upgrade': boolean;
  'no-cache': boolean;
  'retry-unavailable-charts': boolean;
}

export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, got '${value}'`);
  }
  return found;
}

export function engineName(flags: RenderFlags): EngineName {
  return oneOf('--engine', flags.engine, EngineName.options);
}

export function sourceMappings(flags: RenderFlags): SourceMapping[] {
  return flags.source.map((s) => {
    const mapping = parseSourceMapping(s);
    if (!mapping) throw new UsageError(`--source must look like NAME=DIR, got '${s}'`);
    return mapping;
  });
}

export function renderOptions(flags: RenderFlags): RenderOptions {
  return {
    lenientSubstitution: flags['lenient-substitution'],
    allowRemoteBases: flags['allow-remote-bases'],
    enableExecPlugins: flags['enable-exec-plugins'],
    skipHelm: flags['skip-helm'],
    offline: flags.offline,
    skipCrds: flags['skip-crds'],
    apiVersions: flags['api-versions'],
    isUpgrade: flags['is-upgrade'],
    ...(flags['kube-version'] !== undefined ? { kubeVersion: flags['kube-version'] } : {}),
  };
}

/**
 * The machine's render settings, without the render cache when --no-cache asks, and
 * asking again for charts remembered as unavailable when --retry-unavailable-charts does.
 */
export function renderMachine<M extends { renderCache?: unknown; chartNetwork: ChartNetwork }>(
  machine: M,
  flags: Pick<RenderFlags, 'no-cache' | 'retry-unavailable-charts'>,
): M {
  const retry = flags['retry-unavailable-charts'];
  return {
    ...machine,
    ...(flags['no-cache'] ? { renderCache: undefined } : {}),
    ...(retry ? { chartNetwork: { ...machine.chartNetwork, retryUnavailable: true } } : {}),
  };
}

/** A repository-relative entry folder; refuses anything that leaves the repository. */
export function entryPath(path: string): string {
  const entry = repositoryPath(path);
  if (entry === undefined) {
    throw new UsageError(`--path must be a folder inside the repository, got '${path}'`);
  }
  return entry;
}

/**
 * `--path` as the user meant it: relative to the folder `--repo` names (the current one by
 * default), as git takes paths, so `--path prod` from `clusters/` is `clusters/prod`.
 */
export async function entryPaths(
  paths: readonly string[],
  repoFlag: string,
  root: string,
): Promise<string[]> {
  const real = (dir: string) => realpath(dir).catch(() => dir);
  const [from, top] = await Promise.all([real(repoFlag), real(root)]);
  const prefix = relative(top, from).split(sep).join('/');
  const inside = prefix !== '' && !prefix.startsWith('..') && !isAbsolute(prefix);
  return paths.map((p) => entryPath(inside && !posix.isAbsolute(p) ? posix.join(prefix, p) : p));
}
