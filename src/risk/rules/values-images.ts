/**
 * Part of the supply-chain family: the images of a HelmRelease whose chart could not be
 * rendered (it is not assessed: the chart unavailable, its source not rendered). Its
 * containers are missing on one side or both, so the image rules see nothing there; its own
 * spec.values still say which images it asks for, in the shapes common charts read
 * (`image: repo:tag`, `image: {repository, tag}`, `{registry, repository, tag, digest}`).
 * Findings read from them are marked "from values, not rendered" (Finding.basis): what the
 * chart makes of those values is not known.
 */
import { parseImage } from '../../diff/index.js';
import {
  type ResourceChange,
  type UnassessedProducer,
  isRecord,
  keyPath,
  producerKey,
} from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleInfo,
  at,
  breakingWords,
  changeSubject,
  describe,
  isKind,
  rawPair,
  seriesChanged,
  writtenRepository,
} from '../kit/index.js';

export const VALUES_IMAGE_RULES: readonly RuleInfo[] = [
  {
    id: 'values-image-changed',
    level: 'info',
    description:
      'An image in the values of a HelmRelease whose chart could not be rendered (not assessed) that is added, dropped or moved to another tag, digest or repository; read from values, not rendered. A new major version there is `image-major-bump`.',
    headline: 'Changes an image in the values of {resource}',
  },
];

/** Bounds for walking values a repository wrote: deep enough for app-template's controllers. */
const MAX_DEPTH = 16;
const MAX_NODES = 20_000;
/** A key whose string value is an image reference: `image`, `initImage`, `sidecarImage`. */
const IMAGE_KEY = /image$/i;
const IMAGE_TEXT = /^[\w.\-/:@]{1,512}$/;

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value === '' ? undefined : value;
  return typeof value === 'number' ? String(value) : undefined;
}

/** An image a values mapping spells out, `{registry?, repository, tag?, digest?}`, with a tag or digest. */
function spelledOut(value: Record<string, unknown>): string | undefined {
  const repository = text(value['repository']);
  const tag = text(value['tag']);
  const digest = text(value['digest']);
  if (repository === undefined || (tag === undefined && digest === undefined)) return undefined;
  const registry = text(value['registry']);
  let image = registry === undefined ? repository : `${registry}/${repository}`;
  if (tag !== undefined) image += `:${tag}`;
  if (digest !== undefined && !tag?.includes('@')) image += `@${digest}`;
  return image;
}

/** Every image reference in a HelmRelease's values, by its path in them. */
function valuesImages(values: unknown): Map<string, string> {
  const found = new Map<string, string>();
  let budget = MAX_NODES;
  const walk = (value: unknown, path: string, key: string, depth: number) => {
    if (depth > MAX_DEPTH || --budget < 0) return;
    if (typeof value === 'string') {
      if (IMAGE_KEY.test(key) && IMAGE_TEXT.test(value)) found.set(path, value);
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(item, `${path}[${i}]`, key, depth + 1));
      return;
    }
    if (!isRecord(value)) return;
    const image = spelledOut(value);
    if (image !== undefined) {
      found.set(path, image);
      return;
    }
    for (const [child, item] of Object.entries(value)) {
      walk(item, keyPath(path, child), child, depth + 1);
    }
  };
  walk(values, '', '', 0);
  return found;
}

function valuesDrafts(ctx: RiskContext, change: ResourceChange, why: UnassessedProducer): Draft[] {
  const { base, head } = rawPair(ctx, change);
  const before = valuesImages(at(base, 'spec', 'values'));
  const after = valuesImages(at(head, 'spec', 'values'));
  const subject = changeSubject(change);
  const what = describe(subject.resource);
  const marker = `from values, not rendered: ${why.reason}`;
  const drafts: Draft[] = [];
  for (const path of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const [was, is] = [before.get(path), after.get(path)];
    if (was === is) continue;
    const where = `the image at values${path.startsWith('[') ? '' : '.'}${path}`;
    const from = was === undefined ? undefined : parseImage(was);
    const to = is === undefined ? undefined : parseImage(is);
    if (from && to && is && from.repository === to.repository && seriesChanged(from.tag, to.tag)) {
      drafts.push({
        rule: 'image-major-bump',
        subject,
        basis: 'values',
        message: `${what}: ${where} moves ${writtenRepository(is, to)} from ${from.tag} to ${to.tag}, ${breakingWords(to.tag)}: it may break compatibility (${marker}).`,
      });
      continue;
    }
    const moves =
      was === undefined
        ? `is added: ${is}`
        : is === undefined
          ? `is dropped: ${was}`
          : `moves from ${was} to ${is}`;
    drafts.push({
      rule: 'values-image-changed',
      subject,
      basis: 'values',
      message: `${what}: ${where} ${moves} (${marker}).`,
    });
  }
  return drafts;
}

/** Image changes in the values of each changed HelmRelease that is not assessed. */
export function valuesImageChanges(ctx: RiskContext): Draft[] {
  if (ctx.unassessed.size === 0) return [];
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' && change.status !== 'moved') continue;
    if (!isKind(change, 'HelmRelease')) continue;
    const ref = {
      kind: 'HelmRelease' as const,
      namespace: change.namespace ?? 'default',
      name: change.name,
    };
    const why = ctx.unassessed.get(producerKey(ref));
    if (why) drafts.push(...valuesDrafts(ctx, change, why));
  }
  return drafts;
}
