/**
 * Where values read from Secrets landed in an object that a template engine wrote (a Helm
 * chart may copy `.Values.password` anywhere): found by their text, since the template
 * between them and the object is code we do not follow.
 */
import { type Manifest, type SecretDerived, type SecretField, isRecord } from '../model/index.js';
import { type FieldPath } from './hidden-fields.js';
import { MIN_SECRET_VALUE_LENGTH } from './redact-text.js';

/** As deep as redactManifest walks; deeper subtrees are replaced whole there. */
const MAX_DEPTH = 512;

/** Identity stays readable: the diff pairs and names objects by it whatever we hide. */
const IDENTITY = new Set([
  '["apiVersion"]',
  '["kind"]',
  '["metadata","name"]',
  '["metadata","namespace"]',
]);

interface Search {
  long: readonly string[];
  short: ReadonlySet<string>;
  texts: Set<string>;
  fields: SecretField[];
}

function visitString(text: string, path: FieldPath, search: Search, key: boolean): void {
  for (const value of search.long) if (text.includes(value)) search.texts.add(value);
  if (!search.short.has(text) || IDENTITY.has(JSON.stringify(path))) return;
  search.fields.push(key ? { path: [...path], key: true } : { path: [...path] });
}

function visit(value: unknown, path: FieldPath, depth: number, search: Search): void {
  if (depth > MAX_DEPTH) return;
  if (typeof value === 'string') visitString(value, path, search, false);
  else if (Array.isArray(value)) value.forEach((v, i) => visit(v, [...path, i], depth + 1, search));
  else if (isRecord(value)) {
    for (const [key, child] of Object.entries(value)) {
      visitString(key, [...path, key], search, true);
      visit(child, [...path, key], depth + 1, search);
    }
  }
}

/**
 * The text of `manifest` derived from `values`: each value at least MIN_SECRET_VALUE_LENGTH
 * long wherever it occurs, and each shorter one where a whole string (or key) equals it;
 * shorter values inside longer text cannot be told from ordinary words. undefined when
 * none landed here.
 */
export function secretTextIn(
  manifest: Manifest,
  values: readonly string[],
): SecretDerived | undefined {
  const nonEmpty = values.filter((v) => v !== '');
  const search: Search = {
    long: [...new Set(nonEmpty.filter((v) => v.length >= MIN_SECRET_VALUE_LENGTH))],
    short: new Set(nonEmpty.filter((v) => v.length < MIN_SECRET_VALUE_LENGTH)),
    texts: new Set(),
    fields: [],
  };
  if (search.long.length === 0 && search.short.size === 0) return undefined;
  visit(manifest, [], 0, search);
  if (search.texts.size === 0 && search.fields.length === 0) return undefined;
  return { texts: [...search.texts], fields: search.fields };
}
