/**
 * The image check: one answer per image a review asks about. Registries are asked side by
 * side (a few at once), the images of one registry one after another, and a registry that
 * gives no answer at all (it does not resolve, refuses the connection, or passes a bound)
 * is not asked again in the same check: its other images are "not checked" for the same
 * reason at once, so one dead registry costs one connect bound, not one per image.
 */
import { join } from 'node:path';
import type { ImageAnswer, ImageQuery } from '../../model/index.js';
import type { ChartNetwork } from '../settings.js';
import { ImageAnswerCache } from './image-answer-cache.js';
import { askManifest, manifestUrl } from './manifest-exists.js';

export interface ImageCheckSettings {
  /** The chart network: bounds, address policy and the operator's registry credentials. */
  network: ChartNetwork;
  /** The chart cache; answers are kept in its `images` folder. */
  chartCacheDir: string;
  /** Ask no registry: answer from what the cache holds, else "not checked". */
  offline: boolean;
  /** Bounds each exchange with a registry or token service as a whole. */
  timeoutMs: number;
  /** Milliseconds since the epoch, for the cache; Date.now by default. */
  now?: () => number;
}

/** More images than this in one review are not asked about (a bound on one review's requests). */
const MAX_IMAGES = 200;
const REGISTRIES_AT_ONCE = 4;

export async function checkImages(
  queries: readonly ImageQuery[],
  settings: ImageCheckSettings,
): Promise<Map<string, ImageAnswer>> {
  const answers = new Map<string, ImageAnswer>();
  const cache = new ImageAnswerCache(
    join(settings.chartCacheDir, 'images'),
    settings.now ?? Date.now,
  );
  const byRegistry = new Map<string, ImageQuery[]>();
  for (const query of queries.slice(0, MAX_IMAGES)) {
    const list = byRegistry.get(query.registry) ?? [];
    list.push(query);
    byRegistry.set(query.registry, list);
  }
  for (const query of queries.slice(MAX_IMAGES)) {
    const reason = `the review brings in more than ${MAX_IMAGES} images, and only the first ${MAX_IMAGES} are checked`;
    answers.set(query.image, { state: 'unchecked', reason });
  }
  const groups = [...byRegistry.values()];
  const next = async (): Promise<void> => {
    for (let group = groups.shift(); group; group = groups.shift()) {
      await checkRegistry(group, settings, cache, answers);
    }
  };
  await Promise.all(Array.from({ length: REGISTRIES_AT_ONCE }, next));
  return answers;
}

async function checkRegistry(
  queries: readonly ImageQuery[],
  settings: ImageCheckSettings,
  cache: ImageAnswerCache,
  answers: Map<string, ImageAnswer>,
): Promise<void> {
  const limits = { timeoutMs: settings.timeoutMs, maxBytes: 0, network: settings.network };
  let unreachable: ImageAnswer | undefined;
  for (const query of queries) {
    const url = manifestUrl(query);
    if (url === undefined) {
      const reason = 'not a reference the registry API can be asked about';
      answers.set(query.image, { state: 'unchecked', reason });
      continue;
    }
    if (await cache.present(query)) {
      answers.set(query.image, { state: 'present' });
      continue;
    }
    if (settings.offline || unreachable) {
      const reason = 'offline, and the cache holds no answer for it';
      answers.set(query.image, unreachable ?? { state: 'unchecked', reason });
      continue;
    }
    const asked = await askManifest(query, url, limits);
    if (asked.unreachable) unreachable = asked.answer;
    if (asked.answer.state === 'present') await cache.remember(query);
    answers.set(query.image, asked.answer);
  }
}
