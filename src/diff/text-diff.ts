/**
 * The unified text diff of one object over sorted-key YAML, 3 lines of context, with
 * `a/Kind/namespace/name` and `b/...` headers. Callers pass redacted manifests only.
 */
import { FILE_HEADERS_ONLY, createTwoFilesPatch } from 'diff';
import { stringifyManifest, type Manifest } from '../model/index.js';

export const DIFF_CONTEXT_LINES = 3;

/** Empty when both sides print the same; an absent side is an empty file. */
export function textDiff(
  label: string,
  old: Manifest | undefined,
  next: Manifest | undefined,
): string {
  const before = old === undefined ? '' : stringifyManifest(old);
  const after = next === undefined ? '' : stringifyManifest(next);
  if (before === after) return '';
  return createTwoFilesPatch(`a/${label}`, `b/${label}`, before, after, undefined, undefined, {
    context: DIFF_CONTEXT_LINES,
    headerOptions: FILE_HEADERS_ONLY,
  });
}
