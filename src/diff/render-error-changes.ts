/**
 * Which render errors a change introduces or fixes, per producer: a producer that
 * rendered at base (or is new) and fails at head introduces its errors; one that failed
 * at base and renders (or is gone) at head fixes them. Messages are scrubbed of credentials.
 * A chart that could not be had while rendering offline proves nothing either way (Flux
 * would fetch it): it is neither introduced nor fixed, though it still makes its producer
 * count as failing on that side, and stays in the cluster's errors.
 */
import { type RenderError, type RenderedCluster, producerKey, toRef } from '../model/index.js';
import { NO_SECRET_VALUES, REDACTED, type SecretValueIndex, redactText } from '../redact/index.js';

function failing(cluster: RenderedCluster): Set<string> {
  return new Set(cluster.errors.map((e) => producerKey(e.producer)));
}

/** The chart was unavailable to an offline render: maybe only missing from the cache. */
function uncheckedOffline(error: RenderError): boolean {
  return error.code === 'chart-unavailable' && error.offline === true;
}

function publishable(error: RenderError, secrets: SecretValueIndex): RenderError {
  const out: RenderError = {
    producer: toRef(error.producer),
    message: redactText(error.message, REDACTED, secrets),
  };
  if (error.file !== undefined) out.file = error.file;
  return out;
}

function sortKey(error: RenderError): string {
  return `${producerKey(error.producer)}\n${error.file ?? ''}\n${error.message}`;
}

/** Distinct errors, sorted by producer, file, message. */
function distinctSorted(errors: RenderError[]): RenderError[] {
  const byKey = new Map(errors.map((e) => [sortKey(e), e] as const));
  return [...byKey.keys()].sort().map((k) => byKey.get(k) as RenderError);
}

/**
 * A producer failing on both sides (even with another message) is neither: the PR
 * neither broke nor fixed it.
 */
export function renderErrorChanges(
  base: RenderedCluster,
  head: RenderedCluster,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): { introduced: RenderError[]; fixed: RenderError[] } {
  const failingAtBase = failing(base);
  const failingAtHead = failing(head);
  return {
    introduced: distinctSorted(
      head.errors
        .filter((e) => !uncheckedOffline(e) && !failingAtBase.has(producerKey(e.producer)))
        .map((e) => publishable(e, secrets)),
    ),
    fixed: distinctSorted(
      base.errors
        .filter((e) => !uncheckedOffline(e) && !failingAtHead.has(producerKey(e.producer)))
        .map((e) => publishable(e, secrets)),
    ),
  };
}
