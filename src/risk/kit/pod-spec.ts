/**
 * Pods inside the objects that carry a pod template, and the containers inside them: the
 * built-in workload kinds at their known paths, and custom resources (runner sets,
 * operators' CRs, rollouts) wherever something shaped like a pod spec appears.
 */
import { apiGroup, isRecord, keyPath, listSegments, type Manifest } from '../../model/index.js';
import { listAt, objAt, manifestIs, strAt, type Obj } from './manifest.js';

export const POD_CARRIERS = [
  'Deployment',
  'StatefulSet',
  'DaemonSet',
  'ReplicaSet',
  'Job',
  'CronJob',
  'Pod',
] as const;

/** The pod spec a built-in kind runs, or undefined for objects that are not one. */
function builtinPodSpec(manifest: Manifest): Obj | undefined {
  if (manifestIs(manifest, 'Pod')) return objAt(manifest, 'spec');
  if (manifestIs(manifest, 'CronJob')) {
    return objAt(manifest, 'spec', 'jobTemplate', 'spec', 'template', 'spec');
  }
  if (manifestIs(manifest, ...POD_CARRIERS)) return objAt(manifest, 'spec', 'template', 'spec');
  return undefined;
}

export type ContainerList = 'containers' | 'initContainers' | 'ephemeralContainers';

const LISTS: readonly ContainerList[] = ['containers', 'initContainers', 'ephemeralContainers'];
const LIST_LABEL: Record<ContainerList, string> = {
  containers: 'container',
  initContainers: 'init container',
  ephemeralContainers: 'ephemeral container',
};

export interface ContainerView {
  /** Stable across revisions: list and container name, e.g. `initContainers/setup`. */
  key: string;
  /** For messages, e.g. `init container setup`. */
  label: string;
  container: Obj;
}

function containers(spec: Obj): ContainerView[] {
  const out: ContainerView[] = [];
  for (const list of LISTS) {
    listAt(spec, list).forEach((container, index) => {
      if (!isRecord(container)) return;
      const name = strAt(container, 'name') ?? `#${index}`;
      out.push({ key: `${list}/${name}`, label: `${LIST_LABEL[list]} ${name}`, container });
    });
  }
  return out;
}

export interface PodSpecView {
  /**
   * Where the spec sits in a custom resource (`spec.listenerTemplate.spec`); '' for the
   * one spec of a built-in kind. Prefixes fact keys, so two templates never mix.
   */
  where: string;
  /** ` (spec.listenerTemplate.spec)` when the object has several pod specs, else ''. */
  note: string;
  spec: Obj;
  /** Its containers, init and ephemeral ones included, keyed and labelled for the object. */
  containers: ContainerView[];
}

/**
 * Groups whose kinds run no pods but those above: PodTemplate and ControllerRevision
 * only describe pods, and a HelmRelease's values are the chart's input, judged once
 * rendered (a `containers` list in them would otherwise be reported twice).
 */
function searched(manifest: Manifest): boolean {
  const version = manifest['apiVersion'];
  const group = apiGroup(typeof version === 'string' ? version : '');
  return !['', 'apps', 'batch'].includes(group) && !group.endsWith('.toolkit.fluxcd.io');
}

/** A mapping with a non-empty `containers` list whose every item has a name and an image. */
function looksLikePodSpec(value: Obj): boolean {
  const list = value['containers'];
  return (
    Array.isArray(list) &&
    list.length > 0 &&
    list.every(
      (c) => isRecord(c) && typeof c['name'] === 'string' && typeof c['image'] === 'string',
    )
  );
}

/** Deep enough for `spec.replicatedJobs[x].template.spec.template.spec`; bounded for hostile input. */
const MAX_DEPTH = 12;
const MAX_NODES = 20_000;
const NOT_SEARCHED_KEYS = new Set(['apiVersion', 'kind', 'metadata', 'status']);

function findPodSpecs(manifest: Manifest): Array<{ where: string; spec: Obj }> {
  const found: Array<{ where: string; spec: Obj }> = [];
  let budget = MAX_NODES;
  const walk = (value: unknown, path: string, parentKey: string | undefined, depth: number) => {
    if (depth > MAX_DEPTH || --budget < 0) return;
    if (Array.isArray(value)) {
      const segments = listSegments(parentKey, value);
      value.forEach((item, i) => walk(item, path + (segments[i] ?? `[${i}]`), undefined, depth));
      return;
    }
    if (!isRecord(value)) return;
    if (depth > 0 && looksLikePodSpec(value)) {
      found.push({ where: path, spec: value });
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      if (depth === 0 && NOT_SEARCHED_KEYS.has(key)) continue;
      walk(child, keyPath(path, key), key, depth + 1);
    }
  };
  walk(manifest, '', undefined, 0);
  return found;
}

/**
 * Every pod spec the object runs: the one of a built-in kind at its known path (nothing
 * else in it is searched, so nothing is reported twice), or each spec-shaped mapping of a
 * custom resource.
 */
export function podSpecs(manifest: Manifest): PodSpecView[] {
  const builtin = builtinPodSpec(manifest);
  if (builtin) return [{ where: '', note: '', spec: builtin, containers: containers(builtin) }];
  if (!searched(manifest)) return [];
  const found = findPodSpecs(manifest);
  const several = found.length > 1;
  return found.map(({ where, spec }) => {
    const note = several ? ` (${where})` : '';
    return {
      where,
      note,
      spec,
      containers: containers(spec).map((c) => ({
        key: `${where}|${c.key}`,
        label: `${c.label}${note}`,
        container: c.container,
      })),
    };
  });
}

/** The labels of the pods a workload creates. */
export function podLabels(manifest: Manifest): Record<string, string> {
  const labels = manifestIs(manifest, 'Pod')
    ? objAt(manifest, 'metadata', 'labels')
    : objAt(manifest, 'spec', 'template', 'metadata', 'labels');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}
