/** Plain-text labels shared by every report, so Markdown, check runs and the terminal agree. */
import type { LevelOrNone, ProducerRef } from '../model/index.js';

/** The diff step labels its text diffs with the same words. */
export { resourceLabel } from '../model/index.js';

export function producerLabel(producer: ProducerRef): string {
  return `${producer.kind}/${producer.namespace}/${producer.name}`;
}

/** `file:line`, `file`, or undefined when the source is unknown. */
export function sourceLocation(file: string | undefined, line?: number): string | undefined {
  if (file === undefined || file === '') return undefined;
  return line === undefined ? file : `${file}:${line}`;
}

/** The badge word for a level: DANGER, CAUTION, INFO, and OK for no finding at all. */
export function levelLabel(level: LevelOrNone): string {
  return level === 'none' ? 'OK' : level.toUpperCase();
}

/**
 * Whether a report adds its own "routine" mark: the verdict is routine and its headline
 * does not already open with saying so (the risk step's routine headline does).
 */
export function marksRoutine(verdict: { routine: boolean; headline: string }): boolean {
  return verdict.routine && !/^routine\b/i.test(verdict.headline.trim());
}
