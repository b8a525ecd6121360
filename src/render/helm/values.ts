/**
 * The values Flux hands to Helm for a HelmRelease: valuesFrom ConfigMaps and Secrets, then
 * spec.values (fluxcd/pkg/chartutil ChartValuesFromReferences); and the chart defaults
 * source-controller packages from spec.chart.spec.valuesFiles. Messages name references
 * and files, never the values in them.
 */
import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, posix, relative } from 'node:path';
import { sopsPlaceholder } from '../../model/index.js';
import { GoYamlError, parseGoYaml } from '../../yaml/index.js';
import type { HelmRelease, ValuesReference } from './helm-release.js';
import { isTree, parseSet, put, StrvalsError } from './strvals.js';
import { FluxlensError } from '../../errors.js';

export class ValuesError extends FluxlensError {
  constructor(message: string) {
    super('invalid-content', message);
    this.name = 'ValuesError';
  }
}

export type ConfigLookup = (
  kind: 'ConfigMap' | 'Secret',
  namespace: string,
  name: string,
) => Record<string, string> | undefined;

type Values = Record<string, unknown>;

const DEFAULT_VALUES_KEY = 'values.yaml';

/**
 * The HelmRelease CRD's validation of valuesFrom (fluxcd/pkg/apis/meta ValuesReference): the
 * API server refuses a HelmRelease that breaks it, so Flux never renders one.
 */
const CRD_RULES = {
  valuesKey: { pattern: /^[-._a-zA-Z0-9]+$/, maxLength: 253 },
  targetPath: { pattern: /^(?:[a-zA-Z0-9_\-.\\/]|\[[0-9]{1,5}\])+$/, maxLength: 250 },
} as const;

/** Helm's MergeMaps: b wins; maps merge key by key; everything else is shared, not copied. */
function mergeMaps(a: Values, b: Values | undefined): Values {
  const out: Values = { ...a };
  for (const [key, value] of Object.entries(b ?? {})) {
    const current = Object.hasOwn(out, key) ? out[key] : undefined;
    put(out, key, isTree(value) && isTree(current) ? mergeMaps(current, value) : value);
  }
  return out;
}

function cloneValues(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cloneValues);
  if (!isTree(value)) return value;
  const out: Values = {};
  for (const [key, item] of Object.entries(value)) put(out, key, cloneValues(item));
  return out;
}

/**
 * YAML values as Go reads them: sigs.k8s.io/yaml takes the first document, Helm's chart
 * loader merges them all. Throws GoYamlError with a code and position, never content.
 */
function readYaml(text: string, allDocuments: boolean): Values {
  let merged: Values = {};
  for (const value of parseGoYaml(text, { allDocuments })) {
    if (value !== null && value !== undefined && !isTree(value)) {
      throw new GoYamlError('not a mapping');
    }
    merged = mergeMaps(merged, isTree(value) ? value : undefined);
  }
  return merged;
}

// ---------------------------------------------------------------------------------------------
// valuesFrom and spec.values
// ---------------------------------------------------------------------------------------------

/** Flux's wording, so a message reads like the HelmRelease's own status. */
function describeRef(ref: ValuesReference, namespace: string): string {
  const optional = ref.optional === true ? ' optional' : '';
  const key = ref.valuesKey || DEFAULT_VALUES_KEY;
  return `could not resolve${optional} ${ref.kind} chart values reference '${namespace}/${ref.name}' with key '${key}'`;
}

function checkCrdRules(ref: ValuesReference, index: number): void {
  for (const field of ['valuesKey', 'targetPath'] as const) {
    const value = ref[field];
    const rule = CRD_RULES[field];
    if (value === undefined || (value.length <= rule.maxLength && rule.pattern.test(value)))
      continue;
    throw new ValuesError(
      `spec.valuesFrom[${index}].${field} '${value}' fails the HelmRelease CRD validation ` +
        `(at most ${rule.maxLength} characters matching ${rule.pattern.source}); ` +
        'the API server rejects this HelmRelease',
    );
  }
}

export interface ComposeOptions {
  /**
   * Given: a required reference whose ConfigMap or Secret is not in the cluster (an
   * ExternalSecret or an operator creates it) adds nothing, its values being unknown, and is
   * told here as `Kind namespace/name`, where Flux would fail the release for the missing
   * object. A missing key in an object that is there still fails.
   */
  unknown?: (source: string) => void;
}

/**
 * The referenced text; undefined when an optional reference is missing (object or key), or
 * when the object is not in the cluster and options.unknown takes it.
 */
function referencedText(
  ref: ValuesReference,
  namespace: string,
  lookup: ConfigLookup,
  options: ComposeOptions,
): string | undefined {
  const data = lookup(ref.kind, namespace, ref.name);
  const key = ref.valuesKey || DEFAULT_VALUES_KEY;
  if (data === undefined) {
    if (ref.optional === true) return undefined;
    if (options.unknown) {
      options.unknown(`${ref.kind} ${namespace}/${ref.name}`);
      return undefined;
    }
    throw new ValuesError(`${describeRef(ref, namespace)}: resource not found`);
  }
  if (!Object.hasOwn(data, key)) {
    if (ref.optional === true) return undefined;
    throw new ValuesError(`${describeRef(ref, namespace)}: key not found`);
  }
  return data[key];
}

function readRefYaml(text: string, where: string): Values {
  try {
    return readYaml(text, false);
  } catch (error) {
    if (!(error instanceof GoYamlError)) throw error;
    throw new ValuesError(`${where}: the value is not valid YAML (${error.message})`);
  }
}

const LITERAL_ESCAPES = /[\\,[\]{}]/g;

function isQuoted(text: string): boolean {
  return (
    (text.startsWith("'") && text.endsWith("'")) || (text.startsWith('"') && text.endsWith('"'))
  );
}

/**
 * Flux's ReplacePathValue / ReplacePathLiteralValue: `path=value` goes through Helm's `--set`
 * parser, typed unless quoted; a literal value is escaped so it arrives verbatim.
 */
function setAtTargetPath(values: Values, ref: ValuesReference, text: string, where: string): void {
  const path = ref.targetPath ?? '';
  try {
    if (ref['literal'] === true) {
      parseSet(`${path}=${text.replace(LITERAL_ESCAPES, '\\$&')}`, values, true);
    } else if (isQuoted(text)) {
      parseSet(`${path}=${text.replace(/^['"]+|['"]+$/g, '')}`, values, true);
    } else {
      parseSet(`${path}=${text}`, values, false);
    }
  } catch (error) {
    if (!(error instanceof StrvalsError)) throw error;
    throw new ValuesError(
      `${where}: failed to merge value at targetPath '${path}': ${error.reason}`,
    );
  }
}

/**
 * The user-supplied values helm-controller passes to the install/upgrade, in Flux's order.
 * References are read from the HelmRelease's namespace and merged in turn; spec.values goes
 * last. A targetPath writes through the tree it shares with spec.values, as Flux's does, so
 * it beats spec.values exactly where spec.values alone supplied the map it writes into.
 */
export function composeValues(
  hr: HelmRelease,
  lookup: ConfigLookup,
  defaultNamespace = 'default',
  options: ComposeOptions = {},
): Values {
  const namespace = hr.metadata.namespace || defaultNamespace;
  const inline = hr.spec.values ? (cloneValues(hr.spec.values) as Values) : undefined;
  let result: Values = {};
  for (const [index, ref] of (hr.spec.valuesFrom ?? []).entries()) {
    checkCrdRules(ref, index);
    const text = referencedText(ref, namespace, lookup, options);
    if (text === undefined) continue;
    const where = describeRef(ref, namespace);
    if (ref.targetPath) {
      result = mergeMaps(result, inline);
      setAtTargetPath(result, ref, text, where);
    } else if (!isSealed(ref, text)) {
      result = mergeMaps(result, readRefYaml(text, where));
    }
  }
  return mergeMaps(result, inline);
}

/** A SOPS-encrypted Secret cannot be read offline: its values are left out, not guessed. */
function isSealed(ref: ValuesReference, text: string): boolean {
  return ref.kind === 'Secret' && text === sopsPlaceholder(ref.valuesKey || DEFAULT_VALUES_KEY);
}

// ---------------------------------------------------------------------------------------------
// spec.chart.spec.valuesFiles (source-controller internal/helm/chart builders)
// ---------------------------------------------------------------------------------------------

/** Go's filepath.Clean on a slash path. */
function cleanPath(file: string): string {
  const cleaned = posix.normalize(file);
  return cleaned.length > 1 && cleaned.endsWith('/') ? cleaned.slice(0, -1) : cleaned;
}

/** Whether Helm's loader keeps `name` among a packaged chart's Files (not templates, not metadata). */
function isChartFile(name: string): boolean {
  if (name === '.' || name === '..' || name.startsWith('../') || name.startsWith('/')) return false;
  if (['Chart.yaml', 'Chart.lock', 'values.yaml', 'values.schema.json'].includes(name))
    return false;
  if (name === 'requirements.yaml' || name === 'requirements.lock') return false;
  if (name.startsWith('templates/')) return false;
  return !name.startsWith('charts/') || name.endsWith('.prov');
}

async function fileKind(file: string): Promise<'file' | 'other' | 'missing'> {
  try {
    return (await stat(file)).isFile() ? 'file' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

async function readValuesFile(
  file: string,
  reference: string,
  allDocuments: boolean,
): Promise<Values> {
  try {
    return readYaml(await readFile(file, 'utf8'), allDocuments);
  } catch (error) {
    if (error instanceof GoYamlError) {
      throw new ValuesError(`values file '${reference}' is not valid YAML (${error.message})`);
    }
    throw error;
  }
}

/** A packaged chart (HelmRepository, OCI): names are chart files; values.yaml is the chart's. */
async function packagedValues(
  chartDir: string,
  file: string,
  ignoreMissing: boolean,
): Promise<Values | undefined> {
  const name = cleanPath(file);
  if (name === 'values.yaml') {
    const path = join(chartDir, name);
    return (await fileKind(path)) === 'file' ? readValuesFile(path, file, true) : undefined;
  }
  if (isChartFile(name) && (await fileKind(join(chartDir, name))) === 'file') {
    return readValuesFile(join(chartDir, name), file, false);
  }
  if (ignoreMissing) return undefined;
  throw new ValuesError(`no values file found at path '${file}'`);
}

/** A chart built from a GitRepository or Bucket: names resolve inside the whole source. */
async function sourceValues(
  sourceRoot: string,
  file: string,
  ignoreMissing: boolean,
): Promise<Values | undefined> {
  const path = join(sourceRoot, posix.normalize(`/${file}`));
  let kind = await fileKind(path);
  if (kind === 'file') {
    const inside = relative(await realpath(sourceRoot), await realpath(path));
    if (inside.startsWith('..') || isAbsolute(inside)) kind = 'missing';
  }
  if (kind === 'file') return readValuesFile(path, file, false);
  if (kind === 'missing' && ignoreMissing) return undefined;
  throw new ValuesError(`no values file found at path '${file}'`);
}

/**
 * Default values of a chart as source-controller packages it with spec.chart.spec.valuesFiles
 * (undefined = leave the chart's values.yaml alone). The files merge in order into a new
 * values.yaml; with every file missing and ignored that is an empty one. Pass `sourceRoot`
 * for a chart from a GitRepository or Bucket, whose paths are relative to the source root
 * rather than to the chart.
 */
export async function chartDefaultValues(
  chartDir: string,
  valuesFiles: readonly string[],
  ignoreMissing: boolean,
  sourceRoot?: string,
): Promise<Values | undefined> {
  const [only] = valuesFiles;
  if (only === undefined || (valuesFiles.length === 1 && cleanPath(only) === 'values.yaml'))
    return undefined;
  let merged: Values = {};
  for (const file of valuesFiles) {
    const values =
      sourceRoot === undefined
        ? await packagedValues(chartDir, file, ignoreMissing)
        : await sourceValues(sourceRoot, file, ignoreMissing);
    merged = mergeMaps(merged, values);
  }
  if ((await fileKind(join(chartDir, 'values.yaml'))) !== 'file') {
    throw new ValuesError(
      'the chart has no values.yaml for spec.chart.spec.valuesFiles to replace',
    );
  }
  return merged;
}
