/** Pods inside the objects that carry a pod template, and the containers inside them. */
import { isRecord, type Manifest } from '../../model/index.js';
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

/** The pod spec a manifest runs, or undefined for objects that run no pods. */
export function podSpec(manifest: Manifest): Obj | undefined {
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

export function containers(spec: Obj): ContainerView[] {
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

/** The labels of the pods a workload creates. */
export function podLabels(manifest: Manifest): Record<string, string> {
  const labels = manifestIs(manifest, 'Pod')
    ? objAt(manifest, 'metadata', 'labels')
    : objAt(manifest, 'spec', 'template', 'metadata', 'labels');
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}
