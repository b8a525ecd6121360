/**
 * Routine changes: the ones a bot makes every day (image tags and digests, chart
 * versions) and nothing else, as the diff step tells them (isVersionMove). Judged from
 * the diff's field paths, so Secret values are never looked at. The verdict adds what
 * else routine needs: no finding above info, no render error introduced, all assessed.
 */
import { isVersionMove } from '../diff/index.js';
import type { ResourceChange } from '../model/index.js';

export function isRoutineChange(change: ResourceChange): boolean {
  return isVersionMove(change);
}
