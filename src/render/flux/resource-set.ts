/**
 * flux-operator's ResourceSet (fluxcd.controlplane.io/v1): the objects it applies, expanded
 * from its input sets (inline `spec.inputs`, and ResourceSetInputProviders of type Static,
 * whose one set is `spec.defaultValues`) by Flatten or Permute, through the Go templates of
 * `spec.resources` and `spec.resourcesTemplate` (go-template.ts). What needs the cluster
 * or an API (providers that list pull requests, branches or tags; `inputs.id`, derived from
 * cluster UIDs; `spec.steps`) makes the set not assessed, with the reason; never a guess.
 */
import { z } from 'zod';
import { apiGroup, isRecord, objectMeta, type Manifest } from '../../model/index.js';
import { GoYamlError, parseGoYaml } from '../../yaml/index.js';
import { renderTemplate } from './go-template.js';
import { goYaml } from './template-functions.js';
import { TemplateError, TemplateUnsupported, Unknown, type Value } from './template-values.js';

const OPERATOR_GROUP = 'fluxcd.controlplane.io';
const OPERATOR_VERSION = `${OPERATOR_GROUP}/v1`;
/** flux-operator refuses more permutations than this. */
const MAX_INPUT_SETS = 10_000;
const RECONCILE_ANNOTATION = 'fluxcd.controlplane.io/reconcile';

function isOperatorKind(manifest: Manifest, kind: string): boolean {
  const apiVersion = manifest['apiVersion'];
  return (
    manifest['kind'] === kind &&
    typeof apiVersion === 'string' &&
    apiGroup(apiVersion) === OPERATOR_GROUP
  );
}

export function isResourceSet(manifest: Manifest): boolean {
  return isOperatorKind(manifest, 'ResourceSet');
}

const Selector = z.looseObject({
  matchLabels: z.record(z.string(), z.string()).optional(),
  matchExpressions: z
    .array(
      z.looseObject({
        key: z.string(),
        operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
        values: z.array(z.string()).optional(),
      }),
    )
    .optional(),
});

const ResourceSet = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: z
    .looseObject({
      inputs: z.array(z.record(z.string(), z.unknown())).optional(),
      inputsFrom: z
        .array(z.looseObject({ name: z.string().optional(), selector: Selector.optional() }))
        .optional(),
      inputStrategy: z
        .looseObject({
          name: z.enum(['Flatten', 'Permute']).optional(),
          includeEmptyProviders: z.boolean().optional(),
        })
        .optional(),
      resources: z.array(z.record(z.string(), z.unknown())).optional(),
      resourcesTemplate: z.string().optional(),
      steps: z.array(z.unknown()).optional(),
      commonMetadata: z
        .looseObject({
          labels: z.record(z.string(), z.string()).optional(),
          annotations: z.record(z.string(), z.string()).optional(),
        })
        .optional(),
    })
    .optional(),
});
type ResourceSet = z.infer<typeof ResourceSet>;

/** `objects`: what the set applies; `notAssessed`: why fluxlens cannot tell; `error`: Flux fails too. */
export type Expansion = { objects: Manifest[] } | { notAssessed: string } | { error: string };

/** One source of input sets: the ResourceSet itself or a provider. */
interface InputSource {
  kind: 'ResourceSet' | 'ResourceSetInputProvider';
  name: string;
  namespace: string;
  sets: Array<Record<string, unknown>>;
}

/** Why one of `providers`' ResourceSetInputProviders is missing or cannot be read. */
type ProviderProblem = { notAssessed: string } | { error: string };

/**
 * The objects `manifest` applies; `providers` lists the ResourceSetInputProviders of a
 * namespace in the rendered cluster.
 */
export function expandResourceSet(
  manifest: Manifest,
  namespace: string,
  providers: (namespace: string) => Manifest[],
): Expansion {
  const parsed = ResourceSet.safeParse(manifest);
  if (!parsed.success) return { error: 'invalid ResourceSet' };
  const set = parsed.data;
  const spec = set.spec ?? {};
  if (spec.steps !== undefined)
    return { notAssessed: 'it uses spec.steps, which fluxlens does not expand' };
  if (spec.resources === undefined && spec.resourcesTemplate === undefined)
    return { error: 'the ResourceSet defines no resources' };
  const sources = inputSources(set, namespace, providers);
  if ('error' in sources || 'notAssessed' in sources) return sources;
  const inputSets = combine(sources, spec, set.metadata.name, namespace);
  if ('error' in inputSets) return inputSets;
  try {
    return { objects: applyTemplates(spec, inputSets) };
  } catch (err) {
    if (err instanceof TemplateUnsupported)
      return { notAssessed: `template uses ${err.message}, which fluxlens does not evaluate` };
    if (err instanceof TemplateError) return { error: `template: ${err.message}` };
    if (err instanceof GoYamlError) return { error: `rendered YAML: ${err.message}` };
    throw err;
  }
}

function inputSources(
  set: ResourceSet,
  namespace: string,
  providers: (namespace: string) => Manifest[],
): InputSource[] | ProviderProblem {
  const spec = set.spec ?? {};
  const sources: InputSource[] = [];
  if (spec.inputs !== undefined)
    sources.push({ kind: 'ResourceSet', name: set.metadata.name, namespace, sets: spec.inputs });
  const available = providers(namespace).filter((m) =>
    isOperatorKind(m, 'ResourceSetInputProvider'),
  );
  for (const ref of spec.inputsFrom ?? []) {
    let chosen: Manifest[];
    if (ref.name !== undefined) {
      chosen = available.filter((m) => objectMeta(m).name === ref.name);
      if (chosen.length === 0)
        return {
          notAssessed: `its ResourceSetInputProvider ${namespace}/${ref.name} is not in the rendered cluster`,
        };
    } else if (ref.selector !== undefined) {
      const selector = ref.selector;
      chosen = available.filter((m) => selects(selector, objectMeta(m).labels));
    } else return { error: 'inputsFrom names no provider' };
    for (const provider of chosen.sort((a, b) =>
      objectMeta(a).name < objectMeta(b).name ? -1 : 1,
    )) {
      const source = providerSource(provider, namespace);
      if (!('sets' in source)) return source;
      sources.push(source);
    }
  }
  return sources;
}

/** Kubernetes label selector semantics: every label and every expression must match. */
function selects(selector: z.infer<typeof Selector>, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return (
    byLabel &&
    (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
      const has = Object.hasOwn(labels, key);
      if (operator === 'Exists') return has;
      if (operator === 'DoesNotExist') return !has;
      const inValues = has && values.includes(labels[key] ?? '');
      return operator === 'In' ? inValues : !inValues;
    })
  );
}

function providerSource(provider: Manifest, namespace: string): InputSource | ProviderProblem {
  const name = objectMeta(provider).name;
  const spec = isRecord(provider['spec']) ? provider['spec'] : {};
  const type = spec['type'];
  if (type !== 'Static') {
    const kind = typeof type === 'string' ? type : 'unknown';
    return {
      notAssessed: `its inputs come from ResourceSetInputProvider ${namespace}/${name} of type ${kind}, which fluxlens does not fetch`,
    };
  }
  const values = isRecord(spec['defaultValues']) ? spec['defaultValues'] : {};
  return { kind: 'ResourceSetInputProvider', name, namespace, sets: [values] };
}

/** flux-operator's built-in fields of a set: its `id` (from cluster UIDs) and its provider. */
function withBuiltins(values: Record<string, unknown>, source: InputSource): Record<string, Value> {
  // An inline set keeps an `id` it gives; any other id flux-operator derives.
  const own = source.kind === 'ResourceSet' ? (values['id'] as Value | undefined) : undefined;
  return {
    ...(values as Record<string, Value>),
    id: own ?? new Unknown('`inputs.id` (flux-operator derives it from the cluster)'),
    provider: {
      apiVersion: OPERATOR_VERSION,
      kind: source.kind,
      name: source.name,
      namespace: source.namespace,
    },
  };
}

/** The name Permute nests a source's set under: lower case, words joined by `_`. */
function permuteKey(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\s\p{P}\p{S}]/gu, '_')
    .replace(/[^a-z0-9_]/g, '')
    .split('_')
    .filter((w) => w !== '')
    .join('_');
}

function combine(
  sources: InputSource[],
  spec: NonNullable<ResourceSet['spec']>,
  name: string,
  namespace: string,
): Array<Record<string, Value>> | { error: string } {
  if (sources.length === 0) {
    // Without inputs the resources are applied once, from an empty set.
    return [withBuiltins({}, { kind: 'ResourceSet', name, namespace, sets: [] })];
  }
  if (spec.inputStrategy?.name !== 'Permute') {
    const flat = sources.flatMap((s) => s.sets.map((v) => withBuiltins(v, s)));
    return flat.length > MAX_INPUT_SETS
      ? { error: `more than ${MAX_INPUT_SETS} input sets` }
      : flat;
  }
  const used =
    spec.inputStrategy.includeEmptyProviders === true
      ? sources
      : sources.filter((s) => s.sets.length > 0);
  let product: Array<Record<string, Value>> = [{}];
  for (const source of used) {
    const key = permuteKey(source.name);
    const next: Array<Record<string, Value>> = [];
    for (const partial of product)
      for (const values of source.sets)
        next.push({ ...partial, [key]: withBuiltins(values, source) });
    if (next.length > MAX_INPUT_SETS) return { error: `more than ${MAX_INPUT_SETS} permutations` };
    product = next;
  }
  if (used.length === 0) return [];
  const id = new Unknown('`inputs.id` (flux-operator derives it from the cluster)');
  return product.map((p) => ({ ...p, id }));
}

/**
 * Each of `spec.resources` (as YAML, templated, read back) through every set, then
 * `spec.resourcesTemplate` through every set; empty documents dropped, resources disabled by annotation left
 * out, commonMetadata applied, the first of duplicates kept.
 */
function applyTemplates(
  spec: NonNullable<ResourceSet['spec']>,
  inputSets: Array<Record<string, Value>>,
): Manifest[] {
  const out = new Map<string, Manifest>();
  const add = (text: string, inputs: Record<string, Value>) => {
    for (const doc of parseGoYaml(renderTemplate(text, inputs, {}), { allDocuments: true })) {
      if (doc === null || doc === undefined) continue;
      if (!isRecord(doc)) throw new TemplateError('a rendered document is not an object');
      const meta = objectMeta(doc);
      if (meta.annotations[RECONCILE_ANNOTATION] === 'disabled') continue;
      const key = `${meta.apiVersion}/${meta.kind}/${meta.namespace ?? ''}/${meta.name}`;
      if (!out.has(key)) out.set(key, withCommonMetadata(doc, spec.commonMetadata));
    }
  };
  for (const resource of spec.resources ?? []) {
    const text = goYaml(resource as Value);
    for (const inputs of inputSets) add(text, inputs);
  }
  if (spec.resourcesTemplate !== undefined)
    for (const inputs of inputSets) add(spec.resourcesTemplate, inputs);
  return [...out.values()];
}

function withCommonMetadata(
  manifest: Record<string, unknown>,
  common: NonNullable<ResourceSet['spec']>['commonMetadata'],
): Manifest {
  if (!common?.labels && !common?.annotations) return manifest;
  const metadata = isRecord(manifest['metadata']) ? manifest['metadata'] : {};
  const merge = (field: 'labels' | 'annotations') => {
    const given = common[field];
    if (!given) return {};
    const own = isRecord(metadata[field]) ? metadata[field] : {};
    return { [field]: { ...own, ...given } };
  };
  return { ...manifest, metadata: { ...metadata, ...merge('labels'), ...merge('annotations') } };
}

/**
 * flux-operator reconciles a ResourceSet unless annotated `reconcile: disabled`, and
 * garbage-collects what it stops applying unless annotated `prune: disabled`.
 */
export function resourceSetFacts(manifest: Manifest): { suspend: boolean; prune: boolean } {
  const { annotations } = objectMeta(manifest);
  return {
    suspend: annotations['fluxcd.controlplane.io/reconcile'] === 'disabled',
    prune: annotations['fluxcd.controlplane.io/prune'] !== 'disabled',
  };
}
