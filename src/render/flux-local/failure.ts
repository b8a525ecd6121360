/**
 * What a failed flux-local run reports: the Kustomizations its message blames get the
 * error, every other producer is skipped. Attribution reads flux-local's own message text
 * (it has no structured errors); it must not throw, a failure is data in the result.
 */
import { describeRelease } from './helm.js';
import type { ListedKustomization } from './output.js';
import {
  DEFAULT_NAMESPACE,
  FLUX_LOCAL_RUN,
  describeKustomization,
  sortProducers,
  withFile,
  type Workspace,
} from './producers.js';
import { refOf } from '../flux/index.js';
import {
  producerKey,
  toRef,
  type Producer,
  type ProducerRef,
  type RenderedCluster,
  type RenderError,
} from '../../model/index.js';

/**
 * The Producers to report when flux-local failed: an error on each Kustomization its
 * message names (or on FLUX_LOCAL_RUN), every other one skipped.
 */
export function failedRun(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  message: string,
  tools: Record<string, string>,
): RenderedCluster {
  const named = namedKustomizations(message);
  const culprit =
    named.length > 0 ? named.map((r) => `${r.namespace}/${r.name}`).join(', ') : undefined;
  const cluster = stoppedRun(
    ws,
    listed,
    named.map((producer) => ({ producer, message })),
    culprit
      ? `not rendered: flux-local stops the whole run at the error in Kustomization ${culprit}`
      : 'not rendered: flux-local failed (see the error on flux-local)',
    tools,
  );
  if (named.length === 0) cluster.errors.push({ producer: { ...FLUX_LOCAL_RUN }, message });
  return cluster;
}

/**
 * The Producers to report when flux-local was not run because Kustomizations would have
 * read outside their source or fetched remote bases: their errors as given, every other
 * producer skipped. flux-local cannot leave one Kustomization out of a run
 * (--skip-invalid-kustomization-paths only skips missing folders), so one refused
 * Kustomization stops the whole run.
 */
export function refusedRun(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  refused: readonly RenderError[],
  tools: Record<string, string>,
): RenderedCluster {
  const culprit = refused.map((e) => `${e.producer.namespace}/${e.producer.name}`).join(', ');
  const why = refused.every((e) => e.code === 'remote-base-refused')
    ? 'would fetch a remote base'
    : 'was refused before flux-local ran (see its error)';
  return stoppedRun(
    ws,
    listed,
    refused,
    `not rendered: flux-local was not run, as Kustomization ${culprit} ${why}`,
    tools,
  );
}

/** Every producer known without a build: `blamed` ones get their error, the others `skipped`. */
function stoppedRun(
  ws: Workspace,
  listed: readonly ListedKustomization[],
  blamed: readonly RenderError[],
  skipped: string,
  tools: Record<string, string>,
): RenderedCluster {
  const producers = new Map<string, Producer>();
  for (const ks of listed) {
    const ref: ProducerRef = { kind: 'Kustomization', namespace: ks.namespace, name: ks.name };
    producers.set(producerKey(ref), describeKustomization(ws, ref, new Map(), ks.path));
  }
  for (const [key, item] of ws.files) {
    if (!producers.has(key))
      producers.set(
        key,
        describeKustomization(ws, refOf(item.manifest, DEFAULT_NAMESPACE), new Map()),
      );
  }
  for (const { producer: ref } of blamed) {
    const key = producerKey(ref);
    if (!producers.has(key)) producers.set(key, describeKustomization(ws, ref, new Map()));
  }
  for (const [key, item] of ws.releaseFiles) {
    const ref = refOf(item.manifest, DEFAULT_NAMESPACE);
    producers.set(key, describeRelease(ref, item.manifest, { file: item.file, line: item.line }));
  }
  const errors: RenderError[] = [];
  for (const producer of producers.values()) {
    const own = blamed.filter((e) => producerKey(e.producer) === producerKey(producer));
    if (own.length === 0) {
      producer.skipped = skipped;
      continue;
    }
    producer.error = own[0]!.message;
    for (const e of own)
      errors.push(
        e.file ? e : withFile({ producer: toRef(producer), message: e.message }, producer),
      );
  }
  return { producers: sortProducers(producers), objects: [], errors, tools };
}

/** The Kustomizations a flux-local error message blames, in order of appearance. */
export function namedKustomizations(message: string): ProducerRef[] {
  const found: { at: number; ref: ProducerRef }[] = [];
  const add = (at: number, namespace: string, name: string): void => {
    found.push({ at, ref: { kind: 'Kustomization', namespace, name } });
  };
  for (const m of message.matchAll(/(?:Kustomization|Fluxtomization) '([^'/\s]+)\/([^'\s]+)'/g))
    add(m.index, m[1]!, m[2]!);
  for (const m of message.matchAll(/flux build ks ([^\s']+)[^\n']*?--namespace ([^\s']+)/g))
    add(m.index, m[2]!, m[1]!);
  for (const m of message.matchAll(/multiple Fluxtomizations with the same name: \[([^\]]*)\]/g)) {
    for (const item of m[1]!.matchAll(/'([^'/\s]+)\/([^'\s]+)'/g)) add(m.index, item[1]!, item[2]!);
  }
  found.sort((a, b) => a.at - b.at);
  const out: ProducerRef[] = [];
  for (const { ref } of found)
    if (!out.some((r) => producerKey(r) === producerKey(ref))) out.push(ref);
  return out;
}

/** flux-local's last error line(s), with scratch paths made repository-relative. */
export function cleanMessage(raw: string, ws: Workspace): string {
  let text = raw;
  const at = text.lastIndexOf('flux-local error:');
  if (at >= 0) text = text.slice(at + 'flux-local error:'.length);
  // A mapped source's copy becomes `KEY:path`, the scratch repository the repository root.
  const prefixes: [string, string][] = [
    ...ws.mapped.flatMap((m): [string, string][] =>
      m.root === undefined ? [] : [[m.root, `${m.key}:`]],
    ),
    [ws.repoRoot, ''],
    [ws.dir, ''],
  ];
  for (const [from, to] of prefixes) {
    text = text
      .split(`${from}/`)
      .join(to)
      .split(from)
      .join(to === '' ? '.' : `${to}.`);
  }
  return `flux-local: ${text.trim()}`;
}
