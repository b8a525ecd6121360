/**
 * The parts of a chart's metadata that resolution reads: name, version and declared
 * dependencies (Chart.yaml for apiVersion v2, requirements.yaml for v1), and the lock
 * file that, when present, decides which dependencies are needed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { ChartContentError } from './chart-content-error.js';

export const ChartDependency = z.looseObject({
  name: z.string().min(1),
  version: z.string().optional(),
  repository: z.string().optional(),
  alias: z.string().optional(),
});
export type ChartDependency = z.infer<typeof ChartDependency>;

const ChartYaml = z.looseObject({
  apiVersion: z.string().optional(),
  name: z.string().min(1),
  version: z.string().min(1),
  dependencies: z.array(ChartDependency).nullable().optional(),
});

const DependencyFile = z.looseObject({
  dependencies: z.array(ChartDependency).nullable().optional(),
});

export interface ChartMetadata {
  apiVersion: string;
  name: string;
  version: string;
  dependencies: ChartDependency[];
}

const MAX_ALIAS_COUNT = 100;

function parseYaml(text: string, file: string, what: string): unknown {
  try {
    return parse(text, { maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    throw new ChartContentError(`${what}: ${file} is not valid YAML`, { cause: err });
  }
}

function schemaError(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}` : 'invalid';
}

/** Chart.yaml text to metadata; throws ChartContentError naming the bad field. */
export function parseChartYaml(text: string, what: string): ChartMetadata {
  const parsed = ChartYaml.safeParse(parseYaml(text, 'Chart.yaml', what));
  if (!parsed.success) {
    throw new ChartContentError(`${what}: Chart.yaml ${schemaError(parsed.error)}`);
  }
  const { apiVersion, name, version, dependencies } = parsed.data;
  return { apiVersion: apiVersion ?? 'v1', name, version, dependencies: dependencies ?? [] };
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export async function readChartMetadata(dir: string, what: string): Promise<ChartMetadata> {
  const text = await readOptional(join(dir, 'Chart.yaml'));
  if (text === undefined) throw new ChartContentError(`${what}: no Chart.yaml`);
  return parseChartYaml(text, what);
}

async function readDependencyFile(
  dir: string,
  file: string,
  what: string,
): Promise<ChartDependency[] | undefined> {
  const text = await readOptional(join(dir, file));
  if (text === undefined) return undefined;
  const parsed = DependencyFile.safeParse(parseYaml(text, file, what) ?? {});
  if (!parsed.success) {
    throw new ChartContentError(`${what}: ${file} ${schemaError(parsed.error)}`);
  }
  return parsed.data.dependencies ?? [];
}

/**
 * The dependencies source-controller builds: the lock file's when there is one (it
 * takes precedence), else the declared ones; v1 charts declare them in requirements.yaml.
 */
export async function dependencyRequests(
  dir: string,
  meta: ChartMetadata,
  what: string,
): Promise<ChartDependency[]> {
  const v1 = meta.apiVersion === 'v1';
  const lock = await readDependencyFile(dir, v1 ? 'requirements.lock' : 'Chart.lock', what);
  if (lock) return lock;
  if (!v1) return meta.dependencies;
  return (await readDependencyFile(dir, 'requirements.yaml', what)) ?? meta.dependencies;
}
