/**
 * Every file the PR changes, accounted for: read by a producer whose output was diffed (at
 * base or head, in any cluster), left out of the repository's artifacts by an ignore rule,
 * or read by nothing fluxlens renders. A render that cannot say what it read (flux-local)
 * counts the files under the folder of each Kustomization it rendered, the folder Flux's
 * generator would read: a file a kustomization reaches from elsewhere (`../base`) is then
 * listed as read by nothing, which says too much rather than too little.
 */
import {
  compareStrings,
  type ChangedFiles,
  type IgnoreRule,
  type ProducerRef,
  producerKey,
  type RenderedCluster,
  toRef,
} from '../model/index.js';
import { ignoreRuleOf } from '../render/index.js';

export const APPROXIMATED =
  'the flux-local engine does not say which files it read: a file counts as read when it lies under the folder of a Kustomization it rendered';

export function accountFiles(
  changed: readonly string[],
  sides: readonly RenderedCluster[],
): ChangedFiles {
  const read = new Set(sides.flatMap((s) => s.reads?.files ?? []));
  const unknown = sides.filter((s) => s.reads === undefined && s.producers.length > 0);
  const folders = unknown.flatMap((s) =>
    s.producers
      .filter((p) => p.kind === 'Kustomization' && p.error === undefined && !p.skipped)
      .map((p) => p.path),
  );
  const underFolder = (path: string) => folders.some((f) => f === '.' || path.startsWith(`${f}/`));
  const files: ChangedFiles = { read: [], excluded: [], unread: [] };
  for (const path of [...new Set(changed)].sort(compareStrings)) {
    if (read.has(path) || underFolder(path)) {
      files.read.push(path);
      continue;
    }
    const rule = excludedBy(sides, path);
    if (rule) files.excluded.push({ path, pattern: rule.pattern, from: rule.from });
    else files.unread.push(path);
  }
  if (files.unread.length > 0) {
    const unrendered = notRendered(sides);
    if (unrendered.length > 0) files.unrendered = unrendered;
  }
  if (unknown.length > 0) files.approximated = APPROXIMATED;
  return files;
}

/**
 * The producers of either side that did not render and could have read repository files,
 * once each, with why. A HelmRelease reads them only from a chart in a GitRepository or
 * Bucket: one from a chart registry reads none, and one whose source the render did not
 * record is left out rather than listed as a likely reader.
 */
function notRendered(
  sides: readonly RenderedCluster[],
): Array<{ producer: ProducerRef; reason: string }> {
  const byKey = new Map<string, { producer: ProducerRef; reason: string }>();
  for (const p of sides.flatMap((s) => s.producers)) {
    if (p.kind === 'HelmRelease' && !/^(GitRepository|Bucket)\//.test(p.source)) continue;
    const reason = p.skipped ?? p.error;
    const key = producerKey(p);
    if (reason !== undefined && !byKey.has(key)) byKey.set(key, { producer: toRef(p), reason });
  }
  return [...byKey.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, entry]) => entry);
}

/** The rule of the first render whose every artifact of the repository leaves `path` out. */
function excludedBy(sides: readonly RenderedCluster[], path: string): IgnoreRule | undefined {
  for (const side of sides) {
    const lists = side.reads?.ignore ?? [];
    const rules = lists.map((rules) => ignoreRuleOf(rules, path));
    const [first] = rules;
    if (first !== undefined && rules.every((r) => r !== undefined)) return first;
  }
  return undefined;
}
