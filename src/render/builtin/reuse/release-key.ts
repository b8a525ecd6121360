/**
 * The content key of a HelmRelease, under which the review's other render finds it
 * unchanged: everything `helm template` and the post-renderers read (the prepared chart
 * folder's files, the values, every switch, the tools' versions), the release as written
 * (post-renderers, tests, action settings), how its objects name their templates, which
 * texts in its values derive from a Secret, and what was assumed of sources only the
 * cluster holds.
 */
import { folderDigest, renderCacheKey, type OutcomeStores } from '../../cache/index.js';
import type { HelmRelease, ResolvedChart } from '../../helm/index.js';
import type { ProducerRef } from '../../../model/index.js';
import type { CarriedBuilds, ReleaseReadsRecord, UnavailableRecord } from './carried-builds.js';

/**
 * How releases are keyed, where their pre-keys are recorded and carried from, and where
 * a release whose chart the unavailable memory holds is recorded.
 */
export type ReleaseKeying = { tool: string } & OutcomeStores & {
    reads?:
      | {
          record: ReleaseReadsRecord;
          carried?: CarriedBuilds | undefined;
          unavailable: UnavailableRecord;
        }
      | undefined;
  };

/** A chart bigger than this is read for no key: it inflates on both sides. */
const LIMITS = { maxFiles: 5000, maxBytes: 256 * 1024 * 1024 };

export interface ReleaseKeyParts {
  ref: ProducerRef;
  hr: HelmRelease;
  secretValues: readonly string[];
  chart: ResolvedChart;
  /** The template options but the chart's folder, which is a private copy. */
  options: Record<string, unknown>;
  /** How its objects name their templates (../template-naming.ts), as data for the key. */
  naming: Readonly<Record<string, string>>;
  assumed: readonly string[];
}

/** Undefined for a chart too big to digest. */
export function releaseKey(tool: string, parts: ReleaseKeyParts): string | undefined {
  const { chart } = parts;
  const digest = folderDigest(chart.dir, LIMITS);
  if (digest === undefined) return undefined;
  return renderCacheKey([
    'helm-release/1',
    tool,
    digest,
    { name: chart.name, version: chart.version, source: chart.source },
    chart.digest ?? null,
    parts.ref,
    parts.hr,
    parts.secretValues,
    parts.options,
    parts.naming,
    parts.assumed,
  ]);
}

/**
 * The key of a release that failed because the chart source it names is not in the
 * rendered cluster: that failure is the commit's, the same on every render of it, so it
 * is keyed by the release as written and its error (`source`, the missing object's id).
 */
export function missingSourceKey(
  tool: string,
  parts: Pick<ReleaseKeyParts, 'ref' | 'hr' | 'secretValues'> & { source: string; error: string },
): string {
  return renderCacheKey([
    'helm-release-no-source/1',
    tool,
    parts.ref,
    parts.hr,
    parts.secretValues,
    parts.source,
    parts.error,
  ]);
}
