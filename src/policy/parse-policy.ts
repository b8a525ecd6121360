/**
 * The repository policy file, `.fluxlens.yaml`: parsed with a strict schema so a typo is an
 * error rather than a rule silently left on. The pipeline reads it from the PR's base
 * revision, so a pull request cannot relax the rules that judge it.
 */
import { z } from 'zod';
import { UsageError } from '../errors.js';
import { FailOn, isRecord, repositoryPath } from '../model/index.js';
import { composeBounded, ExpansionBudget, TOO_DEEP } from '../yaml/index.js';
import { DEFAULT_POLICY, type Policy } from './types.js';

export const POLICY_FILE = '.fluxlens.yaml';

const nonEmpty = z.string().min(1, 'must not be empty');

const repoPath = nonEmpty.transform((path, ctx) => {
  const normalized = repositoryPath(path);
  if (normalized === undefined) {
    ctx.addIssue({ code: 'custom', message: 'must be a folder inside the repository' });
    return z.NEVER;
  }
  return normalized;
});

/**
 * The file's schema for the rule ids risk/ registers (the policy sits below risk/, which is
 * why they are passed in): a typo in a rule id would leave the rule it meant alone.
 */
function policySchema(knownRules: ReadonlySet<string>) {
  const ruleId = z.string().refine((id) => knownRules.has(id), 'unknown rule (see docs/rules.md)');
  return z.strictObject({
    rules: z.record(ruleId, z.enum(['off', 'info', 'caution', 'danger'])).optional(),
    ignore: z
      .array(
        z.strictObject({
          rule: z
            .string()
            .refine(
              (id) => id === '*' || knownRules.has(id),
              "unknown rule (or '*' for every rule)",
            ),
          /** `Kind/namespace/name` with `*` wildcards; absent means every resource. */
          resource: nonEmpty.optional(),
        }),
      )
      .optional(),
    normalize: z
      .strictObject({
        labels: z.array(nonEmpty).optional(),
        annotations: z.array(nonEmpty).optional(),
        fields: z.array(nonEmpty).optional(),
      })
      .optional(),
    publicGateways: z.array(nonEmpty).optional(),
    failOn: FailOn.optional(),
    inClusterSources: z.enum(['assume', 'fail']).optional(),
    checkImages: z.boolean().optional(),
    acknowledgements: z.enum(['head', 'carry']).optional(),
    clusters: z
      .array(z.strictObject({ name: nonEmpty, path: repoPath }))
      .superRefine((clusters, ctx) => {
        const seen = new Set<string>();
        clusters.forEach((c, i) => {
          if (seen.has(c.name)) {
            ctx.addIssue({
              code: 'custom',
              path: [i, 'name'],
              message: `duplicate name '${c.name}'`,
            });
          }
          seen.add(c.name);
        });
      })
      .optional(),
  });
}

type PolicyFile = z.infer<ReturnType<typeof policySchema>>;

/**
 * Parses `.fluxlens.yaml`. An empty file is the default policy; anything malformed is a
 * UsageError naming the file and the field (`.fluxlens.yaml: clusters.0.path: required`).
 */
export function parsePolicy(text: string, knownRules: ReadonlySet<string>): Policy {
  const data = readPolicyYaml(text);
  if (data === null || data === undefined) return clonePolicy(DEFAULT_POLICY);
  if (!isRecord(data)) {
    throw new UsageError(`${POLICY_FILE}: must be a mapping of settings`);
  }
  const parsed = policySchema(knownRules).safeParse(data, { reportInput: true });
  if (!parsed.success) {
    const messages = parsed.error.issues.flatMap(describeIssue);
    const shown = messages.slice(0, 5).join('; ');
    const more = messages.length > 5 ? ` (and ${String(messages.length - 5)} more)` : '';
    throw new UsageError(`${POLICY_FILE}: ${shown}${more}`);
  }
  return toPolicy(parsed.data);
}

/**
 * The file's one document as a value, within the YAML bounds every pull request's YAML is
 * read within: a policy nested too deep is a UsageError like any other broken YAML.
 */
function readPolicyYaml(text: string): unknown {
  const { docs, lines, tooDeep } = composeBounded(text, { uniqueKeys: true });
  const invalid = (offset: number, message: string) =>
    new UsageError(
      `${POLICY_FILE}: invalid YAML (line ${String(lines.linePos(offset).line)}): ${message}`,
    );
  const [doc, second] = docs;
  const yamlError = doc?.errors[0];
  if (yamlError) throw invalid(yamlError.pos[0], yamlError.message);
  if (tooDeep) {
    throw new UsageError(
      `${POLICY_FILE}: invalid YAML (line ${String(tooDeep.line)}): ${TOO_DEEP}`,
    );
  }
  if (second) throw invalid(second.range[0], MULTIPLE_DOCUMENTS);
  let data: unknown;
  try {
    data = doc?.toJS({ maxAliasCount: 100 });
  } catch (err) {
    throw new UsageError(
      `${POLICY_FILE}: invalid YAML: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const problem = new ExpansionBudget(text).check(data);
  if (problem) throw new UsageError(`${POLICY_FILE}: invalid YAML: ${problem}`);
  return data;
}

/** The yaml package's words for a second document in a file that holds one. */
const MULTIPLE_DOCUMENTS =
  'Source contains multiple documents; please use YAML.parseAllDocuments()';

function toPolicy(file: PolicyFile): Policy {
  const defaults = clonePolicy(DEFAULT_POLICY);
  return {
    levels: { ...file.rules },
    ignores: (file.ignore ?? []).map((i) => ({ rule: i.rule, resource: i.resource ?? '*' })),
    normalize: {
      labels: file.normalize?.labels ?? defaults.normalize.labels,
      annotations: file.normalize?.annotations ?? defaults.normalize.annotations,
      fields: file.normalize?.fields ?? defaults.normalize.fields,
    },
    publicGateways: file.publicGateways ?? defaults.publicGateways,
    failOn: file.failOn ?? defaults.failOn,
    clusters: (file.clusters ?? []).map((c) => ({ name: c.name, path: c.path })),
    // Only when written: absent reads as `assume`.
    ...(file.inClusterSources !== undefined ? { inClusterSources: file.inClusterSources } : {}),
    ...(file.checkImages === true ? { checkImages: true } : {}),
    ...(file.acknowledgements !== undefined ? { acknowledgements: file.acknowledgements } : {}),
  };
}

function clonePolicy(policy: Policy): Policy {
  return structuredClone(policy);
}

function fieldPath(path: readonly PropertyKey[]): string {
  return path.map((p) => String(p)).join('.');
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function expectedType(expected: string): string {
  if (expected === 'object' || expected === 'record') return 'a mapping';
  if (expected === 'array') return 'a list';
  return `a ${expected}`;
}

function describeIssue(issue: z.core.$ZodIssue): string[] {
  const at = (path: readonly PropertyKey[], message: string): string =>
    path.length > 0 ? `${fieldPath(path)}: ${message}` : message;
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => at([...issue.path, key], 'unknown key'));
    case 'invalid_type':
      if (issue.input === undefined) return [at(issue.path, 'required')];
      return [
        at(
          issue.path,
          `expected ${expectedType(issue.expected)}, got ${describeValue(issue.input)}`,
        ),
      ];
    case 'invalid_value':
      return [
        at(
          issue.path,
          `must be one of ${issue.values.map(String).join(', ')}, got ${describeValue(issue.input)}`,
        ),
      ];
    case 'invalid_key':
      return [at(issue.path, issue.issues[0]?.message ?? 'invalid key')];
    default:
      return [at(issue.path, issue.message)];
  }
}
