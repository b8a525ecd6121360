/**
 * Finds the Flux objects written in the repository's files under the entry folder:
 * Kustomizations, sources, HelmReleases, FluxInstances, and the ConfigMaps and Secrets
 * that substitution and values may read. Files that are not YAML Kubernetes documents are
 * skipped: they are some build's business, not discovery's. So are files no build reads
 * as objects (a patch, a file its folder's kustomization does not list): Flux applies what
 * kustomize builds, and a partial HelmRelease in a patch file is no second definition.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isArtifactGenerator } from './external-artifact.js';
import { isFluxInstance } from './flux-instance.js';
import { KustomizationReferences } from './kustomization-references.js';
import { type Discovery, isFluxKustomization, isFluxSource, isHelmRelease } from './objects.js';
import type { Manifest } from '../../model/index.js';
import type { SourceIgnore } from './source-ignore.js';
import { normalizeFluxPath } from './sources.js';
import { MAX_YAML_FILE_BYTES, parseFileDocuments } from '../../yaml/index.js';

export async function discover(
  root: string,
  entry: string,
  ignore: SourceIgnore,
): Promise<Discovery> {
  const found: Discovery = {
    entry: normalizeFluxPath(entry),
    kustomizations: [],
    helmReleases: [],
    sources: [],
    configData: [],
    instances: [],
  };
  const files: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (ignore.ignores(childRel, e.isDirectory())) continue;
      if (e.isDirectory()) await walk(childRel);
      else if (e.isFile() && /\.ya?ml$|^Kustomization$/.test(e.name)) files.push(childRel);
    }
  };
  await walk(entry === '.' ? '' : entry);
  const references = await KustomizationReferences.read(root, files);
  for (const file of files) {
    if (/\.ya?ml$/.test(file) && references.holdsObjects(file))
      await readObjects(root, file, found, references.namespaceOf(file));
  }
  return found;
}

/**
 * The objects of one file, as the kustomization that lists it builds them: every Flux object
 * is namespaced, so a kustomization's `namespace:` (`namespace`) sets theirs.
 */
async function readObjects(
  root: string,
  file: string,
  found: Discovery,
  namespace: string | undefined,
): Promise<void> {
  const path = join(root, file);
  // Left unread, as any file that does not parse: the build that reads it fails, naming it.
  if ((await stat(path)).size > MAX_YAML_FILE_BYTES) return;
  const { documents } = parseFileDocuments(await readFile(path, 'utf8'));
  for (const { manifest: written, line } of documents) {
    const manifest = namespace === undefined ? written : inNamespace(written, namespace);
    const item = { manifest, file, line };
    if (isFluxKustomization(manifest)) found.kustomizations.push(item);
    else if (isHelmRelease(manifest)) found.helmReleases.push(item);
    else if (isFluxSource(manifest) || isArtifactGenerator(manifest)) found.sources.push(item);
    else if (isFluxInstance(manifest)) found.instances.push(item);
    else if (
      manifest['apiVersion'] === 'v1' &&
      (manifest['kind'] === 'ConfigMap' || manifest['kind'] === 'Secret')
    ) {
      found.configData.push(item);
    }
  }
}

function inNamespace(manifest: Manifest, namespace: string): Manifest {
  const metadata = manifest['metadata'];
  const meta = typeof metadata === 'object' && metadata !== null ? metadata : {};
  return { ...manifest, metadata: { ...meta, namespace } };
}
