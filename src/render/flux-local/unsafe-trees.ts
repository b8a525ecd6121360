/**
 * The builtin engine's kustomization check, run before flux-local: `flux build ks` follows
 * any path a kustomization names, out of the repository too, and fetches remote bases
 * whenever one is named. So the trees flux-local will build are walked first, and each
 * Kustomization whose spec.path or kustomization files leave its source (or name a remote
 * base, unless those are allowed) gets the builtin engine's error. It must not run tools;
 * the check itself lives in render/kustomize/.
 */
import { isAbsolute, join, relative } from 'node:path';
import {
  FluxKustomization,
  SourceIgnore,
  discover,
  normalizeFluxPath,
  refOf,
} from '../flux/index.js';
import {
  UnsafePathError,
  checkKustomizationTree,
  generateKustomization,
} from '../kustomize/index.js';
import { producerKey, type ProducerRef, type RenderError } from '../../model/index.js';
import type { ListedKustomization } from './output.js';
import { DEFAULT_NAMESPACE, sourceRefOf, type Workspace } from './producers.js';
import { isDirectory } from '../workspace/index.js';

/** One Kustomization's tree: the source root it reads and its folder inside it. */
interface Tree {
  ref: ProducerRef;
  root: string;
  /** Prefix of file names in errors: '' for the repository, `SOURCE:` for a mapped source. */
  prefix: string;
  path: string;
  /** The Kustomization, when its definition is at hand; Flux merges its spec when it generates. */
  ks: FluxKustomization | undefined;
}

/**
 * Walks the trees of the Kustomizations flux-local will build: those written under the
 * entry, and those written under the path of one of them (flux-local finds them in its
 * parent's output). Trees already walked are in `checked`. Returns one error per refused
 * Kustomization.
 */
export async function refuseUnsafeTrees(
  ws: Workspace,
  entry: string,
  checked: Set<string>,
  allowRemoteBases: boolean,
): Promise<RenderError[]> {
  const errors: RenderError[] = [];
  const queue = [...ws.files.values()].map((item) => item.manifest);
  const seen = new Set<string>();
  for (let manifest = queue.shift(); manifest !== undefined; manifest = queue.shift()) {
    const ref = refOf(manifest, DEFAULT_NAMESPACE);
    if (seen.has(producerKey(ref))) continue;
    seen.add(producerKey(ref));
    const ks = FluxKustomization.safeParse(manifest).data;
    const path = normalizeFluxPath(ks?.spec.path);
    const tree = treeOf(ws, ref, manifest, path, ks);
    if (tree === undefined) continue;
    const error = await checkTree(tree, checked, allowRemoteBases);
    if (error) errors.push(error);
    // Kustomizations outside the entry come from their parent's output, in its folder.
    if (
      tree.root === ws.repoRoot &&
      !isUnder(path, entry) &&
      (await isDirectory(join(tree.root, path)))
    ) {
      const found = await discover(ws.repoRoot, path, await SourceIgnore.load(ws.repoRoot));
      queue.push(...found.kustomizations.map((k) => k.manifest));
    }
  }
  return errors;
}

/** The trees of Kustomizations `get ks` listed that the walk before it did not reach. */
export async function refuseListedUnsafeTrees(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  checked: Set<string>,
  allowRemoteBases: boolean,
): Promise<RenderError[]> {
  const errors: RenderError[] = [];
  for (const row of listed) {
    const ref: ProducerRef = { kind: 'Kustomization', namespace: row.namespace, name: row.name };
    const mapped = ws.mapped.find(
      (m) => m.root !== undefined && (row.path === m.root || row.path.startsWith(`${m.root}/`)),
    );
    const root = mapped?.root ?? ws.repoRoot;
    const path = normalizeFluxPath(isAbsolute(row.path) ? relative(root, row.path) : row.path);
    const prefix = mapped ? `${mapped.key}:` : '';
    const ks = FluxKustomization.safeParse(ws.files.get(producerKey(ref))?.manifest).data;
    const error = await checkTree({ ref, root, prefix, path, ks }, checked, allowRemoteBases);
    if (error) errors.push(error);
  }
  return errors;
}

function treeOf(
  ws: Workspace,
  ref: ProducerRef,
  manifest: Record<string, unknown>,
  path: string,
  ks: FluxKustomization | undefined,
): Tree | undefined {
  const source = sourceRefOf(manifest);
  const name = source?.name ?? '';
  const mapped = ws.mapped.find(
    (m) => m.key === name || m.key === `${source?.namespace ?? ref.namespace}/${name}`,
  );
  // flux-local drops unmapped OCIRepository sources and reads every other kind from the repository.
  if (!mapped && source?.kind === 'OCIRepository') return undefined;
  const root = mapped?.root ?? ws.repoRoot;
  return { ref, root, prefix: mapped?.root ? `${mapped.key}:` : '', path, ks };
}

async function checkTree(
  tree: Tree,
  checked: Set<string>,
  allowRemoteBases: boolean,
): Promise<RenderError | undefined> {
  if (tree.path === '..' || tree.path.startsWith('../')) {
    return { producer: tree.ref, message: `path '${tree.path}' leaves the source root` };
  }
  const dir = join(tree.root, tree.path);
  // A missing folder is flux-local's to report.
  if (!(await isDirectory(dir))) return undefined;
  try {
    const subfolders = await generatedSubfolders(dir, tree);
    if (subfolders === undefined) {
      if (checked.has(dir)) return undefined;
      checked.add(dir);
      await checkKustomizationTree(tree.root, dir, allowRemoteBases);
    } else {
      // Flux lists the folder's files, and each subfolder with its own kustomization.
      for (const sub of subfolders)
        await checkKustomizationTree(tree.root, join(dir, sub), allowRemoteBases);
    }
    return undefined;
  } catch (err) {
    if (!(err instanceof UnsafePathError)) return undefined;
    return {
      producer: tree.ref,
      message: err.message,
      ...(err.file ? { file: tree.prefix + err.file } : {}),
      ...(err.code === 'remote-base-refused' ? { code: err.code } : {}),
    };
  }
}

/** undefined when the folder has its own kustomization file; else the subfolders Flux lists. */
async function generatedSubfolders(dir: string, tree: Tree): Promise<string[] | undefined> {
  const ks = tree.ks ?? minimalKustomization(tree.ref);
  if (ks === undefined) return undefined;
  const result = await generateKustomization(dir, tree.path, ks).catch(() => undefined);
  if (result === undefined || !result.generated) return undefined;
  const resources = Array.isArray(result.content['resources']) ? result.content['resources'] : [];
  const subfolders: string[] = [];
  for (const r of resources) {
    if (typeof r === 'string' && (await isDirectory(join(dir, r)))) subfolders.push(r);
  }
  return subfolders;
}

/** Enough of a Kustomization for generateKustomization to list a folder's resources. */
function minimalKustomization(ref: ProducerRef): FluxKustomization | undefined {
  return FluxKustomization.safeParse({
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: ref.name, namespace: ref.namespace },
    spec: { sourceRef: { kind: 'GitRepository', name: 'flux-system' } },
  }).data;
}

function isUnder(path: string, entry: string): boolean {
  return entry === '.' || path === entry || path.startsWith(`${entry}/`);
}
