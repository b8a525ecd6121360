/**
 * Which fields of a substituted manifest hold text derived from a Secret. Substitution
 * writes that text between two marks in a second copy of its output; reading both copies
 * and walking them side by side finds the strings and keys the marks ended up in.
 */
import {
  type Manifest,
  type SecretDerived,
  type SecretField,
  isRecord,
} from '../../model/index.js';
import { MIN_SECRET_VALUE_LENGTH } from '../../redact/index.js';

/**
 * Private-use characters, no YAML syntax. A manifest that holds them already only makes
 * more of itself hidden: its text then differs between the copies.
 */
export const SECRET_OPEN = '\uE000';
export const SECRET_CLOSE = '\uE001';

const MARKS = /[\uE000\uE001]/g;
/** As deep as redactManifest walks; the rest of a deeper subtree is hidden whole. */
const MAX_DEPTH = 512;

type Path = Array<string | number>;

interface Found {
  texts: Set<string>;
  fields: SecretField[];
}

const hasMark = (text: string): boolean =>
  text.includes(SECRET_OPEN) || text.includes(SECRET_CLOSE);
const unmarked = (text: string): string => text.replace(MARKS, '');

/** The marked parts of `text`; undefined when the marks do not pair up. */
function markedParts(text: string): string[] | undefined {
  const parts: string[] = [];
  let open = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === SECRET_OPEN) {
      if (open >= 0) return undefined;
      open = i;
    } else if (char === SECRET_CLOSE) {
      if (open < 0) return undefined;
      parts.push(text.slice(open + 1, i));
      open = -1;
    }
  }
  return open < 0 ? parts : undefined;
}

/**
 * A marked string that reads as `real` once unmarked: hidden by its derived parts when
 * each is long enough to be searched for, else whole (`${PASS:0:2}`, `${#PASS}`).
 */
function hideString(real: string, marked: string, field: SecretField, found: Found): void {
  const parts = markedParts(marked);
  if (
    parts !== undefined &&
    unmarked(marked) === real &&
    parts.every((p) => p.length >= MIN_SECRET_VALUE_LENGTH)
  ) {
    for (const part of parts) found.texts.add(part);
    return;
  }
  for (const part of parts ?? []) if (part.length >= MIN_SECRET_VALUE_LENGTH) found.texts.add(part);
  found.fields.push(field);
}

function walkRecord(
  real: Record<string, unknown>,
  marked: Record<string, unknown>,
  path: Path,
  depth: number,
  found: Found,
): void {
  const realKeys = Object.keys(real);
  const markedKeys = Object.keys(marked);
  // Keys pair by position; any doubt (a key that became structure, reordered integer
  // keys) hides the whole mapping.
  const aligned =
    realKeys.length === markedKeys.length &&
    markedKeys.every((key, i) => unmarked(key) === realKeys[i]);
  if (!aligned) {
    found.fields.push({ path });
    return;
  }
  markedKeys.forEach((key, i) => {
    const realKey = realKeys[i] as string;
    const at = [...path, realKey];
    if (hasMark(key)) hideString(realKey, key, { path: at, key: true }, found);
    walk(real[realKey], marked[key], at, depth + 1, found);
  });
}

function walk(real: unknown, marked: unknown, path: Path, depth: number, found: Found): void {
  if (depth > MAX_DEPTH) {
    found.fields.push({ path });
  } else if (typeof marked === 'string' && hasMark(marked)) {
    if (typeof real === 'string') hideString(real, marked, { path }, found);
    // A number, boolean or structure read from derived text.
    else found.fields.push({ path });
  } else if (Array.isArray(real) && Array.isArray(marked) && real.length === marked.length) {
    real.forEach((item, i) => walk(item, marked[i], [...path, i], depth + 1, found));
  } else if (isRecord(real) && isRecord(marked)) {
    walkRecord(real, marked, path, depth, found);
  } else if (!Object.is(real, marked)) {
    found.fields.push({ path });
  }
}

/**
 * Every field of `manifest` but its identity (apiVersion, kind, name, namespace): what is
 * hidden when the marked copy cannot be read, or differs at the top.
 */
function allButIdentity(manifest: Manifest): SecretField[] {
  const fields: SecretField[] = [];
  for (const key of Object.keys(manifest)) {
    if (key !== 'apiVersion' && key !== 'kind' && key !== 'metadata') fields.push({ path: [key] });
  }
  const metadata = manifest['metadata'];
  for (const key of isRecord(metadata) ? Object.keys(metadata) : []) {
    if (key !== 'name' && key !== 'namespace') fields.push({ path: ['metadata', key] });
  }
  return fields;
}

/**
 * The fields of `real` that hold derived text, found by walking the marked copy beside
 * it (`undefined`: it could not be read). The whole object or its whole `metadata`
 * stands for every field (of metadata) but the object's identity.
 */
export function derivedFields(real: Manifest, marked: unknown): SecretDerived {
  const found: Found = { texts: new Set(), fields: [] };
  if (marked === undefined) found.fields.push({ path: [] });
  else walk(real, marked, [], 0, found);
  const fields = found.fields.flatMap((field) => {
    if (field.key) return [field];
    if (field.path.length === 0) return allButIdentity(real);
    if (field.path.length === 1 && field.path[0] === 'metadata') {
      return allButIdentity(real).filter((f) => f.path[0] === 'metadata');
    }
    return [field];
  });
  return { texts: [...found.texts], fields };
}
