/**
 * A producer's content key carried out of its build to the rendered cluster
 * (Producer.inputKey): the review compares it across revisions to tell whether the PR
 * changed what a producer reads, also where the producer failed on both.
 */

/** An outcome with the producer's key when it had one. */
export type KeyedOutcome<T> = T & { inputKey?: string };

export function withInputKey<T extends object>(
  outcome: T,
  key: string | undefined,
): KeyedOutcome<T> {
  return key === undefined ? outcome : { ...outcome, inputKey: key };
}
