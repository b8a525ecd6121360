/**
 * One object's change between base and head: status, redacted manifests, field paths and
 * text diff. Redacts first, then normalises, then compares: no raw value reaches output.
 */
import {
  type ChangeStatus,
  type Manifest,
  type ResourceChange,
  objectMeta,
  producerKey,
  resourceLabel,
  toRef,
} from '../model/index.js';
import { alignToBase } from './align-to-base.js';
import { fieldChanges } from './field-changes.js';
import type { ObjectPair } from './pair-objects.js';
import { NO_SECRET_VALUES, type SecretValueIndex, redactPair } from '../redact/index.js';
import { textDiff } from './text-diff.js';

export type Normalizer = (manifest: Manifest) => Manifest;

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

/** The change for one pair, or undefined when nothing but noise differs. */
export function diffObject(
  pair: ObjectPair,
  normalize: Normalizer,
  cluster: string,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): ResourceChange | undefined {
  const { base, head } = pair;
  const current = head ?? base;
  if (current === undefined) return undefined;
  const moved =
    base !== undefined &&
    head !== undefined &&
    producerKey(base.producer) !== producerKey(head.producer);
  // A producer the PR leaves alone carries its base objects to the head as they are.
  if (base && head && !moved && base.manifest === head.manifest) return undefined;
  if (base && head && !moved && sameJson(base.manifest, head.manifest)) return undefined;

  // Raw manifests were compared above; from here on only redacted ones, with every known
  // Secret value and every field a producer derived from one hidden (a changed one reads
  // <redacted:changed> on the head side).
  const redacted = redactPair(base?.manifest, head?.manifest, secrets, {
    old: base?.secret,
    new: head?.secret,
  });
  const before = redacted.old && normalize(redacted.old);
  const after = redacted.new && normalize(redacted.new);
  const fields = before && after ? fieldChanges(before, after) : [];
  const contentChanged = !(before && after) || fields.length > 0;
  let status: ChangeStatus;
  if (!base) status = 'added';
  else if (!head) status = 'removed';
  else if (moved) status = 'moved';
  else if (contentChanged) status = 'changed';
  else return undefined;

  const meta = objectMeta(current.manifest);
  const label = resourceLabel(meta);
  const aligned = before && after ? (alignToBase(before, after) as Manifest) : after;
  // Built in the field order of ResourceChange, so stored JSON reads top-down.
  const change: ResourceChange = {
    id: pair.id,
    status,
    contentChanged,
    cluster,
    apiVersion: meta.apiVersion,
    kind: meta.kind,
    ...(meta.namespace !== undefined && { namespace: meta.namespace }),
    name: meta.name,
    producer: toRef(current.producer),
    ...(moved && { previousProducer: toRef(base.producer) }),
    ...(current.file !== undefined && { file: current.file }),
    ...(current.file !== undefined && current.line !== undefined && { line: current.line }),
    ...(redacted.old && { old: redacted.old }),
    ...(redacted.new && { new: redacted.new }),
    fields,
    diff: contentChanged ? textDiff(label, before, aligned) : '',
  };
  return change;
}
