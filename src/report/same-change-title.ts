/**
 * The words every report heads a same-change group with: "The same change in 65
 * HelmReleases", then the fields it changes (− removed, + added, ~ changed) or, for a
 * whole object, its status.
 */
import { type FieldChange, type ResourceChange, plural } from '../model/index.js';

/** Fields named in a title; the rest are counted. */
const TITLE_FIELDS = 3;

const SIGNS: Record<FieldChange['change'], string> = { removed: '−', added: '+', changed: '~' };

export interface SameChangeTitle {
  /** `The same change in 65 HelmReleases`. */
  lead: string;
  fields: Array<{ sign: string; path: string }>;
  moreFields: number;
  /** The status, for a change that names no field (an added, removed or moved object). */
  status: string;
}

/** `HelmReleases`, `NetworkPolicies`, `Ingresses`. */
export function kindPlural(kind: string): string {
  if (/[^aeiou]y$/i.test(kind)) return `${kind.slice(0, -1)}ies`;
  if (/(?:s|x|z|ch|sh)$/i.test(kind)) return `${kind}es`;
  return `${kind}s`;
}

export function sameChangeTitle(changes: readonly ResourceChange[]): SameChangeTitle {
  const [first] = changes;
  const kind = first?.kind ?? 'object';
  const fields = first?.fields ?? [];
  return {
    lead: `The same change in ${plural(changes.length, kind, kindPlural(kind))}`,
    fields: fields.slice(0, TITLE_FIELDS).map((f) => ({ sign: SIGNS[f.change], path: f.path })),
    moreFields: Math.max(0, fields.length - TITLE_FIELDS),
    status: first?.status ?? 'changed',
  };
}
