/** Making a ResourceChange built outside diffClusters safe to publish. */
import { resourceLabel, type ResourceChange } from '../model/index.js';
import {
  fullyRedacted,
  NO_SECRET_VALUES,
  REDACTED,
  redactPair,
  redactText,
  type SecretValueIndex,
} from '../redact/index.js';
import { textDiff } from './text-diff.js';

/**
 * A change safe to publish: manifests redacted, credential shapes scrubbed from the
 * diff, and a Secret's diff rebuilt from its redacted manifests unless they already
 * were. Changes from diffClusters are already redacted; this is for changes made elsewhere.
 */
export function redactChange(
  change: ResourceChange,
  secrets: SecretValueIndex = NO_SECRET_VALUES,
): ResourceChange {
  const pair = redactPair(change.old, change.new, secrets);
  const out: ResourceChange = {
    ...change,
    fields: change.fields.map((f) => ({ ...f, path: redactText(f.path, REDACTED, secrets) })),
    diff: redactText(change.diff, REDACTED, secrets),
  };
  // Assigning over the spread keeps the keys where diffClusters put them.
  if (pair.old) out.old = pair.old;
  else delete out.old;
  if (pair.new) out.new = pair.new;
  else delete out.new;
  if (!fullyRedacted(change.old) || !fullyRedacted(change.new)) {
    const label = resourceLabel(change);
    out.diff = change.diff === '' ? '' : textDiff(label, pair.old, pair.new);
  }
  return out;
}
