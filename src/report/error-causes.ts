/**
 * Render errors by cause, so that sixty releases behind one unreachable registry read as
 * one line ("60 HelmReleases: charts from ghcr.io unavailable"), not sixty. The cause is
 * the error's code with the host or source its message names; an error without a code (a
 * content error) is its message with what names one object (quoted values, paths,
 * numbers, the producer's own name) taken out, so that the same mistake in many producers
 * still groups.
 */
import { type ProducerRef, type RenderError, compareStrings, plural } from '../model/index.js';
import { oneLine } from './clip-text.js';

export interface ErrorCause {
  /** Equal for errors of the same cause. */
  key: string;
  /** The cause in words (plain text, to be escaped by the report). */
  label: string;
}

/**
 * The host (and port, when the URL names one) of the first URL in a text: `ghcr.io` from
 * `oci://ghcr.io/x/y` and `https://ghcr.io/v2` alike.
 */
const URL_HOST = /\b[a-z][a-z0-9+.-]*:\/\/(?:[^\s/@'"`]*@)?([^\s/'"`?#)]+)/i;
/** A Flux source named `Kind/namespace/name`, as chart errors name the one they read. */
const SOURCE_REF =
  /\b((?:OCIRepository|HelmRepository|HelmChart|GitRepository|Bucket|ExternalArtifact)\/[^\s/:'"`]+\/[^\s/:'"`,;)]+)/;

function chartCause(error: RenderError): ErrorCause {
  const where = URL_HOST.exec(error.message)?.[1] ?? SOURCE_REF.exec(error.message)?.[1];
  const what = where === undefined ? 'charts' : `charts from ${where}`;
  const offline = error.offline === true;
  return {
    key: `chart-unavailable\n${offline}\n${where ?? ''}`,
    label: offline ? `${what} not in the offline cache` : `${what} unavailable`,
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The message with what names one object replaced by `…`: quoted values, anything with a
 * slash (paths, URLs, `Kind/namespace/name`), numbers, and the producer's name and
 * namespace as words.
 */
function messageShape(message: string, producer: ProducerRef): string {
  let text = oneLine(message)
    .replace(/(["'`])[^"'`]*\1/g, '…')
    .replace(/\S*\/\S*/g, '…');
  const names = [producer.name, producer.namespace].filter((n) => n.length > 0);
  for (const name of names.sort((a, b) => b.length - a.length)) {
    text = text.replace(new RegExp(`(?<![\\w.-])${escapeRegExp(name)}(?![\\w-])`, 'g'), '…');
  }
  return text.replace(/\b\d+\b/g, '…').replace(/…(?:[\s,:;=.()[\]]*…)+/g, '…');
}

export function errorCause(error: RenderError): ErrorCause {
  if (error.code === 'chart-unavailable') return chartCause(error);
  if (error.code === 'remote-base-refused') {
    const host = URL_HOST.exec(error.message)?.[1];
    const from = host === undefined ? '' : ` from ${host}`;
    return {
      key: `remote-base-refused\n${host ?? ''}`,
      label: `remote kustomize bases${from} not fetched (remote bases are disabled)`,
    };
  }
  if (error.code === 'applied-twice') {
    return { key: 'applied-twice', label: 'apply an object another producer applies too' };
  }
  const shape = messageShape(error.message, error.producer);
  return { key: `content\n${shape}`, label: shape };
}

/** A producer in one cluster, as a group lists it. */
export interface GroupMember {
  producer: ProducerRef;
  cluster: string;
}

export interface CauseGroup<T extends GroupMember> {
  cause: ErrorCause;
  /** One entry per producer and cluster, in the order they were given. */
  members: T[];
}

/**
 * Items grouped by cause, each producer once per group (the first item of it kept); the
 * biggest groups first, then by cause. `rank` puts a group with a lower-ranked member
 * first, before size: those producers matter more to the reader.
 */
export function groupByCause<T extends GroupMember>(
  items: readonly T[],
  causeOf: (item: T) => ErrorCause,
  rank: (item: T) => number = () => 0,
): Array<CauseGroup<T>> {
  const groups = new Map<string, { cause: ErrorCause; members: Map<string, T> }>();
  for (const item of items) {
    const cause = causeOf(item);
    const group = groups.get(cause.key) ?? { cause, members: new Map<string, T>() };
    const member = `${item.cluster}\n${item.producer.kind}/${item.producer.namespace}/${item.producer.name}`;
    if (!group.members.has(member)) group.members.set(member, item);
    groups.set(cause.key, group);
  }
  const ranked = [...groups.values()].map((g) => {
    const members = [...g.members.values()];
    return { cause: g.cause, members, best: Math.min(...members.map(rank)) };
  });
  return ranked
    .sort(
      (a, b) =>
        a.best - b.best ||
        b.members.length - a.members.length ||
        compareStrings(a.cause.label, b.cause.label) ||
        compareStrings(a.cause.key, b.cause.key),
    )
    .map(({ cause, members }) => ({ cause, members }));
}

const KIND_ORDER: ReadonlyArray<ProducerRef['kind']> = ['Kustomization', 'HelmRelease'];

/** `60 HelmReleases`, `3 Kustomizations and 2 HelmReleases`. */
export function producerCount(members: readonly GroupMember[]): string {
  return KIND_ORDER.map((kind) => ({
    kind,
    n: members.filter((m) => m.producer.kind === kind).length,
  }))
    .filter(({ n }) => n > 0)
    .map(({ kind, n }) => plural(n, kind))
    .join(' and ');
}

/** How many producers a group names before "and N more". */
const EXAMPLES_SHOWN = 3;

/** A group's first few producers, each as `name` words it, then `and N more`. */
export function someMembers<T extends GroupMember>(
  members: readonly T[],
  name: (member: T) => string,
): string {
  const shown = members.slice(0, EXAMPLES_SHOWN).map(name);
  const more = members.length - shown.length;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}
