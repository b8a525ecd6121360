/** Secrets in the clear: Secret values committed to the repository without SOPS encryption. */
import { isRecord, plural, type Manifest, type ResourceChange } from '../../model/index.js';
import {
  type Draft,
  type RiskContext,
  type RuleFamily,
  at,
  changeSubject,
  deepEqual,
  describe,
  isKind,
  rawPair,
} from '../kit/index.js';

/** Files of other sources carry a `Kind/namespace/name:` prefix; repository files do not. */
export function isRepositoryFile(file: string | undefined): file is string {
  return !!file && !/^[A-Za-z]+\/[^/]*\/[^/:]*:/.test(file);
}

function isSops(manifest: Manifest): boolean {
  return manifest['sops'] !== undefined && manifest['sops'] !== null;
}

function valueKeys(manifest: Manifest): number {
  const keys = new Set<string>();
  for (const field of ['data', 'stringData']) {
    const values = at(manifest, field);
    if (isRecord(values)) for (const key of Object.keys(values)) keys.add(key);
  }
  return keys.size;
}

/** Whether the PR writes secret material: a new plain Secret, new values, or encryption removed. */
function writesValues(base: Manifest | undefined, head: Manifest): boolean {
  if (!base || isSops(base)) return true;
  return (
    !deepEqual(at(base, 'data'), at(head, 'data')) ||
    !deepEqual(at(base, 'stringData'), at(head, 'stringData'))
  );
}

function plainSecret(ctx: RiskContext, change: ResourceChange): Draft[] {
  if (change.status === 'removed' || !isKind(change, 'Secret')) return [];
  if (change.producer.kind !== 'Kustomization' || !isRepositoryFile(change.file)) return [];
  const { base, head } = rawPair(ctx, change);
  if (!head || isSops(head) || valueKeys(head) === 0 || !writesValues(base, head)) return [];
  const subject = changeSubject(change);
  return [
    {
      rule: 'secret-in-clear',
      subject,
      message: `${describe(subject.resource)} comes from ${change.file} without SOPS encryption: its ${plural(valueKeys(head), 'value')} can be read by anyone who can read the repository.`,
    },
  ];
}

export const secrets: RuleFamily = {
  name: 'secrets',
  label: 'secret in the clear',
  rules: [
    {
      id: 'secret-in-clear',
      level: 'danger',
      description:
        'A Secret added or given new values, from a repository file a Kustomization applies, that is not SOPS-encrypted.',
      headline: 'Commits {resource} unencrypted',
    },
  ],
  check: (ctx) => ctx.diff.changes.flatMap((c) => plainSecret(ctx, c)),
};
