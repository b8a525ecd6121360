/**
 * The fields of one manifest that a producer marked as derived from a Secret, as a set the
 * redaction walk asks at each step: hide this value whole, or this key's name.
 */
import type { SecretDerived } from '../model/index.js';

export type FieldPath = ReadonlyArray<string | number>;

export interface HiddenFields {
  value(path: FieldPath): boolean;
  key(path: FieldPath): boolean;
}

/** List indexes are numbers and map keys strings, so `[0]` and `["0"]` stay apart. */
const pathKey = (path: FieldPath): string => JSON.stringify(path);

/** undefined when nothing is hidden, so the walk need not track where it is. */
export function hiddenFields(derived: SecretDerived | undefined): HiddenFields | undefined {
  if (derived === undefined || derived.fields.length === 0) return undefined;
  const values = new Set<string>();
  const keys = new Set<string>();
  for (const field of derived.fields) (field.key ? keys : values).add(pathKey(field.path));
  return {
    value: (path) => values.has(pathKey(path)),
    key: (path) => keys.has(pathKey(path)),
  };
}
