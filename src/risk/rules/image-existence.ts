/**
 * Part of the supply-chain family: an image the PR brings in that its registry does not
 * hold (pods would fail to pull it and the rollout would stall), and one the image check
 * could not ask about, said as such rather than passed in silence. A rule never asks a
 * registry: analysis/ asks about imageQueries (only when the policy's checkImages says
 * so) and passes the answers in (RiskInput.images), so a review stays a function of its
 * inputs. Without answers both rules stay quiet.
 */
import { parseImage } from '../../diff/index.js';
import {
  type ImageQuery,
  type Manifest,
  type ResourceChange,
  compareStrings,
} from '../../model/index.js';
import type { Policy } from '../../policy/index.js';
import {
  type ClusterInput,
  type Draft,
  type Fact,
  type RiskContext,
  type RuleInfo,
  changeSubject,
  describe,
  introducedBy,
  podSpecs,
  riskContext,
  strAt,
} from '../kit/index.js';

export const IMAGE_EXISTENCE_RULES: readonly RuleInfo[] = [
  {
    id: 'image-missing',
    level: 'danger',
    description:
      "A container image the change brings in whose registry answers that the tag or digest does not exist (HTTP 404 for its manifest): pods would fail to pull it. Only with the policy's `checkImages: true`.",
    headline: 'Runs an image its registry does not have in {resource}',
  },
  {
    id: 'image-unchecked',
    level: 'info',
    description:
      "A container image the change brings in that the image check could not ask its registry about (unreachable, refused, offline, or not a valid reference): not checked, never reported missing. Only with the policy's `checkImages: true`.",
    headline: 'Could not check an image of {resource}',
  },
];

interface ImageFact extends Fact {
  image: string;
  label: string;
}

function imageFacts(manifest: Manifest): ImageFact[] {
  return podSpecs(manifest)
    .flatMap((view) => view.containers)
    .flatMap(({ key, label, container }) => {
      const image = strAt(container, 'image')?.trim();
      return image ? [{ key: `${key}|${image}`, image, label }] : [];
    });
}

/** The images a change brings in: each container's image that it did not run at base. */
function broughtIn(ctx: RiskContext, change: ResourceChange): ImageFact[] {
  return change.status === 'removed' ? [] : introducedBy(ctx, change, imageFacts);
}

function toQuery(image: string): ImageQuery {
  const ref = parseImage(image);
  const slash = ref.repository.indexOf('/');
  return {
    image,
    registry: ref.repository.slice(0, slash),
    path: ref.repository.slice(slash + 1),
    reference: ref.digest ?? ref.tag ?? 'latest',
  };
}

/** Every image the clusters' changes bring in, once each, sorted: what the check asks about. */
export function imageQueries(clusters: readonly ClusterInput[], policy: Policy): ImageQuery[] {
  const images = new Set<string>();
  for (const cluster of clusters) {
    const ctx = riskContext(cluster, policy);
    for (const change of ctx.diff.changes) {
      for (const fact of broughtIn(ctx, change)) images.add(fact.image);
    }
  }
  return [...images].sort(compareStrings).map(toQuery);
}

export function imageExistence(ctx: RiskContext): Draft[] {
  if (ctx.images.size === 0) return [];
  const drafts: Draft[] = [];
  for (const change of ctx.diff.changes) {
    const subject = changeSubject(change);
    const what = describe(subject.resource);
    for (const { image, label } of broughtIn(ctx, change)) {
      const answer = ctx.images.get(image);
      if (answer?.state === 'missing') {
        drafts.push({
          rule: 'image-missing',
          subject,
          message: `${what}: ${label} runs ${image}, which ${answer.registry} does not have (HTTP 404 for its manifest): pods would fail to pull it and the rollout would stall.`,
        });
      } else if (answer?.state === 'unchecked') {
        drafts.push({
          rule: 'image-unchecked',
          subject,
          message: `${what}: ${label} runs ${image}, which was not checked: ${answer.reason}.`,
        });
      }
    }
  }
  return drafts;
}
