/**
 * Finds the Flux objects written in the repository's files under the entry folder:
 * Kustomizations, sources, HelmReleases, and the ConfigMaps and Secrets that
 * substitution and values may read. Files that are not YAML Kubernetes documents are
 * skipped: they are some build's business, not discovery's.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isFluxKustomization, isFluxSource, isHelmRelease } from './objects.js';
import type { Manifest } from '../../model/index.js';
import type { SourceIgnore } from './source-ignore.js';
import { parseDocuments } from '../yaml.js';
import { MAX_YAML_FILE_BYTES } from '../yaml-bounds.js';

export interface FoundObject {
  manifest: Manifest;
  /** Path relative to the repository root. */
  file: string;
  line: number;
}

export interface Discovery {
  kustomizations: FoundObject[];
  helmReleases: FoundObject[];
  sources: FoundObject[];
  configData: FoundObject[];
}

export async function discover(
  root: string,
  entry: string,
  ignore: SourceIgnore,
): Promise<Discovery> {
  const found: Discovery = { kustomizations: [], helmReleases: [], sources: [], configData: [] };
  const walk = async (rel: string): Promise<void> => {
    const entries = await readdir(join(root, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (ignore.ignores(childRel, e.isDirectory())) continue;
      if (e.isDirectory()) await walk(childRel);
      else if (e.isFile() && /\.ya?ml$/.test(e.name)) await readObjects(root, childRel, found);
    }
  };
  await walk(entry === '.' ? '' : entry);
  return found;
}

async function readObjects(root: string, file: string, found: Discovery): Promise<void> {
  const path = join(root, file);
  // Left unread, as any file that does not parse: the build that reads it fails, naming it.
  if ((await stat(path)).size > MAX_YAML_FILE_BYTES) return;
  const { documents } = parseDocuments(await readFile(path, 'utf8'));
  for (const { manifest, line } of documents) {
    const item = { manifest, file, line };
    if (isFluxKustomization(manifest)) found.kustomizations.push(item);
    else if (isHelmRelease(manifest)) found.helmReleases.push(item);
    else if (isFluxSource(manifest)) found.sources.push(item);
    else if (
      manifest['apiVersion'] === 'v1' &&
      (manifest['kind'] === 'ConfigMap' || manifest['kind'] === 'Secret')
    ) {
      found.configData.push(item);
    }
  }
}
