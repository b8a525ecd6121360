/**
 * What the kustomization files of a tree say about its YAML files. Flux applies what
 * kustomize builds, and kustomize reads a file as objects only when a kustomization names
 * it as a resource, or when no kustomization file stands in its folder (Flux then
 * generates one from every YAML file there). A file named only as a patch or another
 * input (generator, transformer, replacement...) is never applied as it is written.
 */
import { readFile, stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { Manifest } from '../../model/index.js';
import { MAX_YAML_FILE_BYTES, parseFileDocuments } from '../../yaml/index.js';

/** kustomize's names for a kustomization file, in the order it looks for them. */
export const KUSTOMIZATION_FILE_NAMES: readonly string[] = [
  'kustomization.yaml',
  'kustomization.yml',
  'Kustomization',
];

/** Fields whose entries are files (or folders) kustomize reads, but not as objects to apply. */
const INPUT_LISTS = ['crds', 'configurations', 'generators', 'transformers', 'validators'];
const INPUT_ITEMS = ['patches', 'patchesJson6902', 'replacements'];

export class KustomizationReferences {
  readonly #resources = new Set<string>();
  readonly #inputs = new Set<string>();
  /** Folders whose kustomization file decides what kustomize reads of them. */
  readonly #built = new Set<string>();
  /** A resource (file or folder) and the folder of a kustomization that lists it. */
  readonly #listedBy = new Map<string, string>();
  /** The `namespace:` of each kustomization folder that sets one. */
  readonly #namespaces = new Map<string, string>();

  /** Reads the kustomization files among `files` (repository-relative paths under `root`). */
  static async read(root: string, files: readonly string[]): Promise<KustomizationReferences> {
    const refs = new KustomizationReferences();
    for (const file of files) {
      if (!KUSTOMIZATION_FILE_NAMES.includes(posix.basename(file))) continue;
      const kustomization = await readKustomization(join(root, file));
      if (kustomization) refs.add(posix.dirname(file), kustomization);
    }
    return refs;
  }

  /** Whether a build may read `file` (repository-relative) as objects to apply. */
  holdsObjects(file: string): boolean {
    if (this.#resources.has(file)) return true;
    if (this.#inputs.has(file)) return false;
    return !this.#built.has(posix.dirname(file));
  }

  /**
   * The namespace kustomize gives the objects of `file`: that of the outermost
   * kustomization on the way from the file up through the kustomizations that list it, as
   * an including kustomization's namespace transformer runs after the included one's.
   */
  namespaceOf(file: string): string | undefined {
    let namespace: string | undefined;
    const seen = new Set<string>();
    for (let dir = this.#listedBy.get(file); dir !== undefined; dir = this.#listedBy.get(dir)) {
      if (seen.has(dir)) break;
      seen.add(dir);
      namespace = this.#namespaces.get(dir) ?? namespace;
    }
    return namespace;
  }

  private add(dir: string, kus: Manifest): void {
    this.#built.add(dir);
    const namespace = kus['namespace'];
    if (typeof namespace === 'string' && namespace !== '') this.#namespaces.set(dir, namespace);
    const at = (ref: string): string | undefined => {
      const path = posix.normalize(posix.join(dir, ref.trim()));
      return path === '..' || path.startsWith('../') || path.startsWith('/') || ref.includes('://')
        ? undefined
        : path;
    };
    const put = (set: Set<string>, refs: readonly string[]): void => {
      for (const ref of refs) {
        const path = at(ref);
        if (path !== undefined) set.add(path);
      }
    };
    for (const ref of [...strings(kus['resources']), ...strings(kus['bases'])]) {
      const path = at(ref);
      if (path === undefined) continue;
      this.#resources.add(path);
      if (!this.#listedBy.has(path)) this.#listedBy.set(path, dir);
    }
    put(this.#inputs, [
      ...INPUT_LISTS.flatMap((field) => strings(kus[field])),
      // An entry holding a newline is the patch itself, written inline.
      ...strings(kus['patchesStrategicMerge']).filter((p) => !p.includes('\n')),
      ...INPUT_ITEMS.flatMap((field) => items(kus[field]).flatMap((i) => strings([i['path']]))),
    ]);
    for (const generator of [
      ...items(kus['configMapGenerator']),
      ...items(kus['secretGenerator']),
    ]) {
      const files = [...strings(generator['files']), ...strings(generator['envs'])];
      files.push(...strings([generator['env']]));
      put(
        this.#inputs,
        files.map((f) => (f.includes('=') ? f.slice(f.indexOf('=') + 1) : f)),
      );
    }
  }
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function items(value: unknown): Array<Record<string, unknown>> {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v),
  );
}

/**
 * The kustomization a file holds, or undefined when it holds none kustomize would take: a
 * Flux Kustomization saved under that name, a file that does not parse, one past the size
 * bound. Such a folder is read as if it had no kustomization file: discovery does not
 * guess what it would have listed.
 */
async function readKustomization(path: string): Promise<Manifest | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > MAX_YAML_FILE_BYTES) return undefined;
  const { documents, error } = parseFileDocuments(await readFile(path, 'utf8'));
  const kus = documents[0]?.manifest;
  if (error !== undefined || kus === undefined) return undefined;
  const { apiVersion, kind } = kus;
  const kustomizeApi =
    apiVersion === undefined ||
    (typeof apiVersion === 'string' && apiVersion.startsWith('kustomize.config.k8s.io/'));
  const kustomizeKind = kind === undefined || kind === 'Kustomization' || kind === 'Component';
  return kustomizeApi && kustomizeKind ? kus : undefined;
}
