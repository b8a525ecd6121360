/**
 * Which render errors a change introduces or fixes, per producer: a producer that
 * rendered at base (or is new) and fails at head introduces its errors; one that failed
 * at base and renders at head fixes them. A producer gone at head fixes nothing: removing
 * it does not mend it; nor does one skipped at head, which did not render at all. Only
 * content errors (ones Flux would fail on too) count: a chart that could not be had
 * (network, credentials, an offline cache miss; isUnavailable) proves nothing either way,
 * though it still makes its producer count as failing on that side, and stays in the
 * cluster's errors. Messages are scrubbed of credentials.
 */
import {
  type RenderError,
  type RenderedCluster,
  isUnavailable,
  producerKey,
  toRef,
} from '../model/index.js';
import { NO_SECRET_VALUES, REDACTED, type SecretValueIndex, redactText } from '../redact/index.js';

function failing(cluster: RenderedCluster): Set<string> {
  const real = cluster.errors.filter((e) => e.code !== 'applied-twice');
  return new Set(real.map((e) => producerKey(e.producer)));
}

/**
 * Errors a PR can introduce or fix: not unavailability (nothing about the PR), and not an
 * object applied twice (Flux applies both copies; the flux-applied-twice rules judge it).
 */
function counts(error: RenderError): boolean {
  return !isUnavailable(error) && error.code !== 'applied-twice';
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
  // Rendered at head: present and not skipped (a source not mapped, a flux-local run that
  // stopped), for a producer nothing rendered proves nothing mended.
  const renderedAtHead = new Set(
    head.producers.filter((p) => p.skipped === undefined).map(producerKey),
  );
  const mended = (key: string) => renderedAtHead.has(key) && !failingAtHead.has(key);
  return {
    introduced: distinctSorted(
      head.errors
        .filter((e) => counts(e) && !failingAtBase.has(producerKey(e.producer)))
        .map((e) => publishable(e, secrets)),
    ),
    fixed: distinctSorted(
      base.errors
        .filter((e) => counts(e) && mended(producerKey(e.producer)))
        .map((e) => publishable(e, secrets)),
    ),
  };
}
