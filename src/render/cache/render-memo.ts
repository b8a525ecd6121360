/**
 * Producer outcomes of one render kept in memory by content key, for the render of the same
 * cluster at the other revision of a review. A key covers everything a producer's build and
 * post-build read (see its callers), so a producer whose key the second render finds here
 * is unchanged: it takes the first render's objects, or its error, instead of reading,
 * parsing and substituting its build output again.
 */
import type { RenderedObject, RenderErrorTags } from '../../model/index.js';

/** One producer build's outcome as another render may take it whole. */
export type MemoOutcome =
  | { objects: RenderedObject[]; assumed?: string[]; chart?: string }
  | ({ error: string; file?: string } & RenderErrorTags);

/**
 * The producers of the renders sharing a memo, by how each got its outcome: built (its
 * tool's output run or read from the cache, then post-built), read whole from the render
 * cache, or taken from the other render as unchanged.
 */
export interface RenderMemoCounts {
  rendered: number;
  cached: number;
  unchanged: number;
}

export class RenderMemo {
  readonly counts: RenderMemoCounts = { rendered: 0, cached: 0, unchanged: 0 };
  readonly #outcomes = new Map<string, MemoOutcome>();

  get(key: string): MemoOutcome | undefined {
    return this.#outcomes.get(key);
  }

  /**
   * Counts a producer by how it got its outcome, and keeps the outcome under its key when
   * it has one. Outcomes are shared, not copied: nothing after a render changes its objects.
   */
  note(key: string | undefined, outcome: MemoOutcome, how: keyof RenderMemoCounts): void {
    this.counts[how] += 1;
    if (key !== undefined && !this.#outcomes.has(key)) this.#outcomes.set(key, outcome);
  }
}
