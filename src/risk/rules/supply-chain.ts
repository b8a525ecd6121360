/**
 * Supply chain: what code the cluster runs. Major version jumps of charts and images,
 * chart versions and image references that do not pin what they run, and the images of
 * releases whose chart could not be rendered, read from their values (values-images.ts);
 * with the policy's image check, images their registry does not have (image-existence.ts).
 */
import semver from 'semver';
import { type ChartSlot, chartSlots, parseImage, type RedactedObjects } from '../../diff/index.js';
import {
  type Manifest,
  type ResourceChange,
  apiGroup,
  objectMeta,
  producerKey,
} from '../../model/index.js';
import {
  type ContainerView,
  type Draft,
  type Fact,
  type RiskContext,
  type RuleFamily,
  type Subject,
  changeSubject,
  currentProducer,
  describe,
  introducedBy,
  isKind,
  listSome,
  podSpecs,
  producerSubject,
  rawPair,
  strAt,
  breakingWords,
  seriesChanged,
  seriesOf,
  seriesOfVersion,
  writtenRepository,
} from '../kit/index.js';

import { IMAGE_EXISTENCE_RULES, imageExistence } from './image-existence.js';
import { VALUES_IMAGE_RULES, valuesImageChanges } from './values-images.js';

const CHART_LABEL = 'helm.sh/chart';

interface Bump {
  key: string;
  subject: Subject;
  what: string;
  /** breakingWords of the move. */
  breaking: string;
}

/** Every place each side picks a chart version (chartSlots), by ChartSlot.id. */
interface Slots {
  before: Map<string, ChartSlot>;
  after: Map<string, ChartSlot>;
}

/**
 * `from 3.7.3 to 4.0.0`, with each side's source beside its version when the chart comes
 * from another registry or repository at head: a new source is worth seeing too.
 */
function fromTo(from: string, to: string, was?: ChartSlot, is?: ChartSlot): string {
  if (!was || !is || was.source === is.source) return `from ${from} to ${to}`;
  return `from ${from} (${was.source}) to ${to} (${is.source})`;
}

/**
 * The series a chart source picks (seriesOf): of its tag or version (`4.1.0@sha256:…`
 * reads as 4.1.0), or of the lowest a semver range allows (`>=4.0.0 <5`, `~4.1`);
 * undefined for `latest`, `*` or a bare digest.
 */
function pickedSeries(version: string | undefined): string | undefined {
  const named = version?.split('@')[0] ?? '';
  const series = seriesOf(named);
  if (series !== undefined || !/\d/.test(named)) return series;
  try {
    return semver.validRange(named) === null
      ? undefined
      : seriesOfVersion(semver.minVersion(named));
  } catch {
    return undefined;
  }
}

function chartOfLabel(value: string | undefined): { chart: string; version: string } | undefined {
  const match = value ? /^(.+?)-(v?\d+\.\d+\.\d+.*)$/.exec(value) : null;
  return match?.[1] && match[2] ? { chart: match[1], version: match[2] } : undefined;
}

/** Chart bumps of HelmRelease specs, one per release and chart. */
function releaseBumps(
  ctx: RiskContext,
  changes: readonly ResourceChange[],
  slots: Slots,
  bumps: Map<string, Bump>,
) {
  for (const change of changes) {
    if (!isKind(change, 'HelmRelease')) continue;
    const { base, head } = rawPair(ctx, change);
    const from = strAt(base, 'spec', 'chart', 'spec', 'version');
    const to = strAt(head, 'spec', 'chart', 'spec', 'version');
    if (from === undefined || to === undefined || !seriesChanged(from, to)) continue;
    const chart = (strAt(head, 'spec', 'chart', 'spec', 'chart') ?? '').split('/').pop() ?? '';
    const key = `HelmRelease/${change.namespace ?? ''}/${change.name}|${chart}`;
    const id = `HelmRelease/${change.namespace ?? 'default'}/${change.name}`;
    bumps.set(key, {
      key,
      subject: changeSubject(change),
      what: `chart ${chart} ${fromTo(from, to, slots.before.get(id), slots.after.get(id))}`,
      breaking: breakingWords(to),
    });
  }
}

/**
 * Chart bumps of the OCIRepositories and HelmCharts that releases' chartRefs name, once per
 * source object; each release it reaches is marked, so its rendered labels add no other.
 */
function sourceBumps(
  changes: readonly ResourceChange[],
  { before, after }: Slots,
  bumps: Map<string, Bump>,
) {
  for (const change of changes) {
    if (apiGroup(change.apiVersion) !== 'source.toolkit.fluxcd.io') continue;
    // Only OCIRepositories and HelmCharts are slots that a chartRef names.
    const id = `${change.kind}/${change.namespace ?? 'default'}/${change.name}`;
    const was = before.get(id);
    const is = after.get(id);
    if (!was || !is || was.chart !== is.chart) continue;
    if (!seriesChanged(was.version, is.version, pickedSeries)) continue;
    const releases = [...new Set([...was.producers, ...is.producers])].sort();
    const bump: Bump = {
      key: id,
      subject: changeSubject(change),
      what: `chart ${is.chart} ${fromTo(was.version, is.version, was, is)} for ${listSome(releases)}`,
      breaking: breakingWords(is.version, pickedSeries),
    };
    bumps.set(id, bump);
    for (const release of releases) bumps.set(`${release}|${is.chart}`, bump);
  }
}

/** Chart bumps seen only in rendered chart labels, for releases no spec bump covers. */
function labelBumps(
  ctx: RiskContext,
  changes: readonly ResourceChange[],
  bumps: Map<string, Bump>,
) {
  for (const change of changes) {
    const { base, head } = rawPair(ctx, change);
    if (!base || !head) continue;
    const from = chartOfLabel(objectMeta(base).labels[CHART_LABEL]);
    const to = chartOfLabel(objectMeta(head).labels[CHART_LABEL]);
    if (!from || !to || from.chart !== to.chart || !seriesChanged(from.version, to.version))
      continue;
    const key = `${producerKey(change.producer)}|${to.chart}`;
    if (bumps.has(key)) continue;
    const producer = currentProducer(ctx, change.producer);
    const subject = producer ? producerSubject(ctx, producer) : changeSubject(change);
    bumps.set(key, {
      key,
      subject,
      what: `chart ${to.chart} from ${from.version} to ${to.version}`,
      breaking: breakingWords(to.version),
    });
  }
}

/**
 * Chart bumps: from HelmRelease specs and chart sources first, rendered chart labels
 * second; one per release and chart, or one per chart source for all its releases.
 */
function chartBumps(ctx: RiskContext, slots: Slots): Bump[] {
  const bumps = new Map<string, Bump>();
  const changes = ctx.diff.changes.filter((c) => c.status === 'changed' || c.status === 'moved');
  releaseBumps(ctx, changes, slots, bumps);
  sourceBumps(changes, slots, bumps);
  labelBumps(ctx, changes, bumps);
  return [...new Set(bumps.values())];
}

/** An exact version (`9.1.11`, `v1.2.3`) or one pinned by digest: only what was reviewed runs. */
function isPinned(version: string): boolean {
  return version.includes('sha256:') || semver.valid(version) !== null;
}

/**
 * A version that admits releases nobody has seen yet: a range (`9.x`, `>=1.0.0`, `~1.2`),
 * `*`, or an OCIRepository that names none (`latest`).
 */
function isRange(version: string): boolean {
  if (version === '*' || version === 'latest') return true;
  try {
    return !isPinned(version) && semver.validRange(version) !== null;
  } catch {
    return false;
  }
}

/** Whether a range admits a version past `from`'s compatible series (seriesOf). */
function admitsBreaking(from: string, range: string): boolean {
  const version = semver.parse(semver.valid(from.split('@')[0] ?? ''));
  if (!version || range === '*' || range === 'latest') return true;
  const next = version.major > 0 ? `${version.major + 1}.0.0` : `0.${version.minor + 1}.0`;
  try {
    return semver.intersects(range, `>=${next}`);
  } catch {
    return true;
  }
}

/**
 * Chart versions that move from a pinned version to a range, on a HelmRelease's own
 * spec.chart or on the OCIRepository or HelmChart its chartRef names: from then on Flux
 * upgrades whenever a matching version is published, with no pull request to review it.
 */
function unpinnedCharts(ctx: RiskContext, slots: Slots): Draft[] {
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    if (change.status !== 'changed' && change.status !== 'moved') continue;
    const id = `${change.kind}/${change.namespace ?? 'default'}/${change.name}`;
    const was = slots.before.get(id);
    const is = slots.after.get(id);
    if (!was || !is || was.chart !== is.chart) continue;
    if (!isPinned(was.version) || !isRange(is.version)) continue;
    const subject = changeSubject(change);
    const releases = isKind(change, 'HelmRelease') ? '' : ` for ${listSome(is.producers)}`;
    const breaking = admitsBreaking(was.version, is.version) ? ', new major versions included' : '';
    drafts.push({
      rule: 'chart-unpinned',
      subject,
      message: `${describe(subject.resource)} moves chart ${is.chart}${releases} from the pinned version ${was.version} to ${is.version}: Flux installs the newest version it allows as soon as one is published${breaking}, with no pull request to review it.`,
    });
  }
  return drafts;
}

function containersOf(manifest: Manifest | undefined): ContainerView[] {
  return manifest ? podSpecs(manifest).flatMap((view) => view.containers) : [];
}

function imageBumps(ctx: RiskContext, change: ResourceChange): Draft[] {
  const { base, head } = rawPair(ctx, change);
  const old = new Map(containersOf(base).map((c) => [c.key, strAt(c.container, 'image')]));
  const drafts: Draft[] = [];
  const subject = changeSubject(change);
  for (const { key, label, container } of containersOf(head)) {
    const fromImage = old.get(key);
    const toImage = strAt(container, 'image');
    if (!fromImage || !toImage) continue;
    const from = parseImage(fromImage);
    const to = parseImage(toImage);
    // parseImage spells Docker Hub out, so `nginx` and `docker.io/library/nginx` are one.
    if (from.repository !== to.repository) continue;
    if (!seriesChanged(from.tag, to.tag)) continue;
    drafts.push({
      rule: 'image-major-bump',
      subject,
      message: `${describe(subject.resource)}: ${label} moves ${writtenRepository(toImage, to)} from ${from.tag} to ${to.tag}, ${breakingWords(to.tag)}: it may break compatibility.`,
    });
  }
  return drafts;
}

interface Unpinned extends Fact {
  what: string;
  /** The container's key and the image's repository: one image slot across revisions. */
  slot: string;
  /** No tag or `latest`: a new pod may run anything pushed since. */
  moving: boolean;
}

function unpinnedImages(manifest: Manifest): Unpinned[] {
  const out: Unpinned[] = [];
  for (const { key, label, container } of containersOf(manifest)) {
    const image = strAt(container, 'image');
    if (!image) continue;
    const ref = parseImage(image);
    if (ref.digest) continue;
    const slot = `${key}|${ref.repository}`;
    const moving = ref.tag === undefined || ref.tag === 'latest';
    // `nginx`, `nginx:latest` and `docker.io/library/nginx` are one moving reference.
    const fact = moving ? `${slot}|latest` : `${slot}:${ref.tag ?? ''}`;
    const what = moving
      ? `${label} runs ${image}, the moving latest tag: each new pod may get a different image`
      : `${label} runs ${image} without a digest: what runs changes whenever the tag is pushed again`;
    out.push({ key: fact, what, slot, moving });
  }
  return out;
}

/**
 * Unpinned references the change brings in. A tag given to an image that ran the moving
 * latest tag at base pins it better, if not by digest: the image was already unpinned,
 * so that is not introduced.
 */
function newlyUnpinned(ctx: RiskContext, change: ResourceChange): Unpinned[] {
  const { base } = rawPair(ctx, change);
  const movingAtBase = new Set(
    (base ? unpinnedImages(base) : []).filter((f) => f.moving).map((f) => f.slot),
  );
  return introducedBy(ctx, change, unpinnedImages).filter(
    (fact) => fact.moving || !movingAtBase.has(fact.slot),
  );
}

function check(ctx: RiskContext): Draft[] {
  const redacted: RedactedObjects = new Map();
  const slots: Slots = {
    before: chartSlots(ctx.base.cluster.objects, undefined, redacted),
    after: chartSlots(ctx.head.cluster.objects, undefined, redacted),
  };
  const drafts: Draft[] = chartBumps(ctx, slots).map((bump) => ({
    rule: 'chart-major-bump',
    subject: bump.subject,
    message: `${describe(bump.subject.resource)} moves ${bump.what}, ${bump.breaking}: expect breaking changes in values and in what it deploys.`,
  }));
  drafts.push(...unpinnedCharts(ctx, slots), ...valuesImageChanges(ctx), ...imageExistence(ctx));
  for (const change of ctx.diff.changes) {
    if (change.status === 'removed') continue;
    drafts.push(...imageBumps(ctx, change));
    const subject = changeSubject(change);
    for (const fact of newlyUnpinned(ctx, change)) {
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
      description: `A new major chart version (a new minor under major version zero, 0.15 to 0.16): a HelmRelease's spec.chart.spec.version, the tag, semver range or version of the OCIRepository or HelmChart its chartRef names, or the ${CHART_LABEL} label.`,
      headline: 'Moves {resource} to a new major chart version',
    },
    {
      id: 'chart-unpinned',
      level: 'caution',
      description:
        "A chart version that moves from a pinned version to a range (`9.1.11` to `9.x`, `>=1.0.0`, `*`): a HelmRelease's spec.chart.spec.version, an OCIRepository's ref (tag to semver) or a HelmChart's version.",
      headline: 'Lets Flux pick unreviewed chart versions for {resource}',
    },
    {
      id: 'image-major-bump',
      level: 'caution',
      description:
        'A container image of the same repository whose tag moves to a new major version (or a new minor under major version zero); for a HelmRelease whose chart could not be rendered, an image in its values.',
      headline: 'Moves {resource} to a new major image version',
    },
    {
      id: 'image-unpinned',
      level: 'info',
      description: 'A new image reference with no digest, or with the latest tag (or no tag).',
      headline: 'Runs an unpinned image in {resource}',
    },
    ...VALUES_IMAGE_RULES,
    ...IMAGE_EXISTENCE_RULES,
  ],
  check,
};
