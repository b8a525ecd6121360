/**
 * The line of a rendered object's document in the file kustomize read it from. Kustomize's
 * origin annotation names only the file, and the rendered name may carry a namePrefix,
 * nameSuffix or hash, so the document is picked by kind and name, and only when one fits.
 */
import { readFile, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { isInside, objectMeta } from '../../model/index.js';
import { type ParsedDocument, parseFileDocuments } from '../../yaml/index.js';

/** The 1-based line of the document of `kind` that renders as `name` in `file`, if one fits. */
export type SourceLineFinder = (
  file: string,
  kind: string,
  name: string,
) => Promise<number | undefined>;

/**
 * A finder over the files under `root` (one build's private copy), each read and parsed at
 * most once. A file that resolves outside `root`, through `..` or a symlink, is not read.
 */
export function sourceLineFinder(root: string): SourceLineFinder {
  let realRoot: Promise<string | undefined> | undefined;
  const files = new Map<string, Promise<ParsedDocument[]>>();
  return async (file, kind, name) => {
    let documents = files.get(file);
    if (documents === undefined) {
      realRoot ??= realpath(root).catch(() => undefined);
      documents = realRoot.then((r) => (r === undefined ? [] : readDocuments(r, file)));
      files.set(file, documents);
    }
    return documentLine(await documents, kind, name);
  };
}

async function readDocuments(realRoot: string, file: string): Promise<ParsedDocument[]> {
  const path = await realpath(join(realRoot, file)).catch(() => undefined);
  if (path === undefined || !isInside(realRoot, path, { strictly: true })) return [];
  const text = await readFile(path, 'utf8').catch(() => undefined);
  return text === undefined ? [] : parseFileDocuments(text).documents;
}

/**
 * Among the documents of `kind`: the one named `name`, else the one whose name the rendered
 * name contains (a prefix, suffix or hash added), else the only one. Undefined when more
 * than one fits at the first step that finds any, or none does.
 */
export function documentLine(
  documents: readonly ParsedDocument[],
  kind: string,
  name: string,
): number | undefined {
  const ofKind = documents
    .map((d) => ({ meta: objectMeta(d.manifest), line: d.line }))
    .filter((d) => d.meta.kind === kind);
  const exact = ofKind.filter((d) => d.meta.name === name);
  if (exact.length > 0) return onlyLine(exact);
  const contained = ofKind.filter((d) => d.meta.name !== '' && name.includes(d.meta.name));
  if (contained.length > 0) return onlyLine(contained);
  return onlyLine(ofKind);
}

function onlyLine(candidates: readonly { line: number }[]): number | undefined {
  return candidates.length === 1 ? candidates[0]?.line : undefined;
}
