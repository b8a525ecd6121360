/**
 * Supply chain: what code the cluster runs. Major version jumps of charts and images,
 * and image references that do not pin what they run.
 */
import semver from 'semver';
import { type ImageRef, parseImage } from '../../diff/index.js';
import { type ResourceChange, objectMeta, producerKey, type Manifest } from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleFamily,
  type Subject,
  changeSubject,
  containers,
  currentProducer,
  describe,
  introducedBy,
  isKind,
  podSpec,
  producerSubject,
  rawPair,
  strAt,
} from '../kit/index.js';

const CHART_LABEL = 'helm.sh/chart';

/** The major version of a version-looking string (`v1.2.3`, `1.25-alpine`, `2`), else undefined. */
export function majorOf(version: string | undefined): number | undefined {
  if (!version || !/^v?\d+(\.\d+)*([-+._].*)?$/.test(version)) return undefined;
  return semver.coerce(version)?.major;
}

/**
 * The repository as the manifest spells it (`nginx`, not parseImage's
 * `docker.io/library/nginx`): messages name what the author wrote.
 */
function writtenRepository(image: string, ref: ImageRef): string {
  let name = image.trim();
  if (ref.digest !== undefined) name = name.slice(0, name.length - ref.digest.length - 1);
  if (ref.tag !== undefined) name = name.slice(0, name.length - ref.tag.length - 1);
  return name;
}

interface Bump {
  key: string;
  subject: Subject;
  what: string;
}

function majorChanged(from: string | undefined, to: string | undefined): boolean {
  const a = majorOf(from);
  const b = majorOf(to);
  return a !== undefined && b !== undefined && a !== b;
}

function chartOfLabel(value: string | undefined): { chart: string; version: string } | undefined {
  const match = value ? /^(.+?)-(v?\d+\.\d+\.\d+.*)$/.exec(value) : null;
  return match?.[1] && match[2] ? { chart: match[1], version: match[2] } : undefined;
}

/** Chart bumps, from HelmRelease specs first and rendered chart labels second, one per release and chart. */
function chartBumps(ctx: RiskContext): Bump[] {
  const bumps = new Map<string, Bump>();
  const changes = ctx.diff.changes.filter((c) => c.status === 'changed' || c.status === 'moved');
  for (const change of changes) {
    if (!isKind(change, 'HelmRelease')) continue;
    const { base, head } = rawPair(ctx, change);
    const from = strAt(base, 'spec', 'chart', 'spec', 'version');
    const to = strAt(head, 'spec', 'chart', 'spec', 'version');
    if (!majorChanged(from, to)) continue;
    const chart = (strAt(head, 'spec', 'chart', 'spec', 'chart') ?? '').split('/').pop() ?? '';
    const key = `HelmRelease/${change.namespace ?? ''}/${change.name}|${chart}`;
    bumps.set(key, {
      key,
      subject: changeSubject(change),
      what: `chart ${chart} from ${from} to ${to}`,
    });
  }
  for (const change of changes) {
    const { base, head } = rawPair(ctx, change);
    if (!base || !head) continue;
    const from = chartOfLabel(objectMeta(base).labels[CHART_LABEL]);
    const to = chartOfLabel(objectMeta(head).labels[CHART_LABEL]);
    if (!from || !to || from.chart !== to.chart || !majorChanged(from.version, to.version))
      continue;
    const key = `${producerKey(change.producer)}|${to.chart}`;
    if (bumps.has(key)) continue;
    const producer = currentProducer(ctx, change.producer);
    const subject = producer ? producerSubject(ctx, producer) : changeSubject(change);
    bumps.set(key, {
      key,
      subject,
      what: `chart ${to.chart} from ${from.version} to ${to.version}`,
    });
  }
  return [...bumps.values()];
}

function imageBumps(ctx: RiskContext, change: ResourceChange): Draft[] {
  const { base, head } = rawPair(ctx, change);
  const before = base ? podSpec(base) : undefined;
  const after = head ? podSpec(head) : undefined;
  if (!before || !after) return [];
  const old = new Map(containers(before).map((c) => [c.key, strAt(c.container, 'image')]));
  const drafts: Draft[] = [];
  const subject = changeSubject(change);
  for (const { key, label, container } of containers(after)) {
    const fromImage = old.get(key);
    const toImage = strAt(container, 'image');
    if (!fromImage || !toImage) continue;
    const from = parseImage(fromImage);
    const to = parseImage(toImage);
    // parseImage spells Docker Hub out, so `nginx` and `docker.io/library/nginx` are one.
    if (from.repository !== to.repository) continue;
    if (!majorChanged(from.tag, to.tag)) continue;
    drafts.push({
      rule: 'image-major-bump',
      subject,
      message: `${describe(subject.resource)}: ${label} moves ${writtenRepository(toImage, to)} from ${from.tag} to ${to.tag}, a new major version that may break compatibility.`,
    });
  }
  return drafts;
}

function unpinnedImages(manifest: Manifest): Array<{ key: string; what: string }> {
  const spec = podSpec(manifest);
  if (!spec) return [];
  const out: Array<{ key: string; what: string }> = [];
  for (const { key, label, container } of containers(spec)) {
    const image = strAt(container, 'image');
    if (!image) continue;
    const ref = parseImage(image);
    if (ref.digest) continue;
    const what =
      ref.tag === undefined || ref.tag === 'latest'
        ? `${label} runs ${image}, the moving latest tag: each new pod may get a different image`
        : `${label} runs ${image} without a digest: what runs changes whenever the tag is pushed again`;
    out.push({ key: `${key}|${image}`, what });
  }
  return out;
}

function check(ctx: RiskContext): Draft[] {
  const drafts: Draft[] = chartBumps(ctx).map((bump) => ({
    rule: 'chart-major-bump',
    subject: bump.subject,
    message: `${describe(bump.subject.resource)} moves ${bump.what}, a new major version: expect breaking changes in values and in what it deploys.`,
  }));
  for (const change of ctx.diff.changes) {
    if (change.status === 'removed') continue;
    drafts.push(...imageBumps(ctx, change));
    const subject = changeSubject(change);
    for (const fact of introducedBy(ctx, change, unpinnedImages)) {
      drafts.push({
        rule: 'image-unpinned',
        subject,
        message: `${describe(subject.resource)}: ${fact.what}.`,
      });
    }
  }
  return drafts;
}

export const supplyChain: RuleFamily = {
  name: 'supply-chain',
  label: 'supply chain',
  rules: [
    {
      id: 'chart-major-bump',
      level: 'caution',
      description: `A new major chart version, from a HelmRelease's spec.chart.spec.version or the ${CHART_LABEL} label.`,
      headline: 'Moves {resource} to a new major chart version',
    },
    {
      id: 'image-major-bump',
      level: 'caution',
      description:
        'A container image of the same repository whose tag moves to a new major version.',
      headline: 'Moves {resource} to a new major image version',
    },
    {
      id: 'image-unpinned',
      level: 'info',
      description: 'A new image reference with no digest, or with the latest tag (or no tag).',
      headline: 'Runs an unpinned image in {resource}',
    },
  ],
  check,
};
