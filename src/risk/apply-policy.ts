/** The repository policy over findings: level overrides (or 'off') and ignores. */
import type { Policy } from '../policy/index.js';
import type { Finding, Level } from '../model/index.js';

function globToRegExp(glob: string): RegExp {
  const body = glob
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

/** `Kind/namespace/name`; cluster-scoped resources also answer to `Kind/name`. */
function resourceKeys(resource: Finding['resource']): string[] {
  const { kind, namespace, name } = resource;
  return namespace ? [`${kind}/${namespace}/${name}`] : [`${kind}//${name}`, `${kind}/${name}`];
}

export function isIgnored(finding: Finding, ignores: Policy['ignores']): boolean {
  return ignores.some((ignore) => {
    if (!globToRegExp(ignore.rule).test(finding.rule)) return false;
    const pattern = globToRegExp(ignore.resource);
    return resourceKeys(finding.resource).some((key) => pattern.test(key));
  });
}

/** The level the policy gives a rule, or undefined when the policy turns it off. */
export function policyLevel(policy: Policy, rule: string, level: Level): Level | undefined {
  const override = Object.hasOwn(policy.levels, rule) ? policy.levels[rule] : undefined;
  if (override === 'off') return undefined;
  return override ?? level;
}
