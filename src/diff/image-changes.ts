/**
 * Which container images a set of changes moves from one version to another, per
 * normalised repository: every container, initContainer and ephemeralContainer of any
 * pod spec (Pods, workload templates, CronJob job templates, custom resources alike).
 */
import {
  type ImageChange,
  type Manifest,
  type ResourceChange,
  isRecord,
  keyPath,
  listSegments,
} from '../model/index.js';
import { type ImageRef, parseImage } from './parse-image.js';

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

function collect(value: unknown, path: string, out: Map<string, string>): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => collect(item, `${path}[${i}]`, out));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const childPath = keyPath(path, key);
    if (CONTAINER_LISTS.has(key) && Array.isArray(child)) {
      const segments = listSegments(key, child);
      child.forEach((container, i) => {
        const image = isRecord(container) ? container['image'] : undefined;
        if (typeof image === 'string' && image.trim() !== '') {
          out.set(childPath + (segments[i] ?? `[${i}]`), image);
        }
      });
    } else {
      collect(child, childPath, out);
    }
  }
}

/** Container path (`spec.template.spec.containers[app]`) -> image, for one manifest. */
export function containerImages(manifest: Manifest | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (manifest !== undefined) collect(manifest, '', out);
  return out;
}

function removeCommon(gone: string[], came: string[]): void {
  for (let i = gone.length - 1; i >= 0; i--) {
    const j = came.indexOf(gone[i] as string);
    if (j >= 0) {
      came.splice(j, 1);
      gone.splice(i, 1);
    }
  }
}

/** One object's image changes: containers paired by path, then per repository. */
function objectImageChanges(old: Manifest | undefined, next: Manifest | undefined): ImageChange[] {
  const before = containerImages(old);
  const after = containerImages(next);
  const byRepo = new Map<string, { gone: string[]; came: string[] }>();
  const slot = (ref: ImageRef) => {
    const entry = byRepo.get(ref.repository) ?? { gone: [], came: [] };
    byRepo.set(ref.repository, entry);
    return entry;
  };
  for (const path of new Set([...before.keys(), ...after.keys()])) {
    const from = before.get(path);
    const to = after.get(path);
    if (from !== undefined) slot(parseImage(from)).gone.push(parseImage(from).reference);
    if (to !== undefined) slot(parseImage(to)).came.push(parseImage(to).reference);
  }
  const out: ImageChange[] = [];
  for (const [repository, { gone, came }] of byRepo) {
    // A container renamed or moved keeps its image: not an image change.
    removeCommon(gone, came);
    for (let i = 0; i < Math.max(gone.length, came.length); i++) {
      const change: ImageChange = { repository };
      if (gone[i] !== undefined) change.from = gone[i] as string;
      if (came[i] !== undefined) change.to = came[i] as string;
      out.push(change);
    }
  }
  return out;
}

function compareImageChanges(a: ImageChange, b: ImageChange): number {
  const ka = [a.repository, a.from ?? '', a.to ?? ''];
  const kb = [b.repository, b.from ?? '', b.to ?? ''];
  for (let i = 0; i < ka.length; i++) {
    if (ka[i] !== kb[i]) return (ka[i] as string) < (kb[i] as string) ? -1 : 1;
  }
  return 0;
}

/** Distinct image changes over all changes, sorted by repository, from, to. */
export function imageChanges(changes: readonly ResourceChange[]): ImageChange[] {
  const seen = new Map<string, ImageChange>();
  for (const change of changes) {
    for (const image of objectImageChanges(change.old, change.new)) {
      seen.set(`${image.repository}\n${image.from ?? ''}\n${image.to ?? ''}`, image);
    }
  }
  return [...seen.values()].sort(compareImageChanges);
}
