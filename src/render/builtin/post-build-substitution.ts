/**
 * A Kustomization's post-build substitution as kustomize-controller sets it up: the
 * variables of its substituteFrom sources and inline substitute, which of them derive from
 * a Secret, and, for sources only the cluster holds, what was assumed in their place.
 */
import { errorMessage } from '../../errors.js';
import type { RenderSettings } from '../settings.js';
import type { FluxKustomization } from '../flux/index.js';
import type { Manifest, ProducerRef, SecretDerived } from '../../model/index.js';
import { derivedFromSecret } from '../../redact/index.js';
import {
  type SubstituteOptions,
  type Substituted,
  type VariableInput,
  collectVariables,
  secretVariableNames,
  substituteTracked,
  SubstitutionError,
  unknownSources,
} from './substitute.js';

/** What the cluster rendered so far holds, as a Kustomization build reads it. */
export interface VariableLookups {
  settings: Pick<RenderSettings, 'strictSubstitution' | 'inClusterSources'>;
  /** The string data of a ConfigMap or Secret in the cluster rendered so far. */
  configData: (
    kind: 'ConfigMap' | 'Secret',
    namespace: string,
    name: string,
  ) => Record<string, string> | undefined;
  /** The keys of that ConfigMap or Secret whose values derive from a Secret. */
  secretKeys: (kind: 'ConfigMap' | 'Secret', namespace: string, name: string) => Set<string>;
}

/** A Kustomization's post-build substitution, worked out once for all its objects. */
export interface PostBuildSubstitution {
  vars: Record<string, string>;
  secretNames: ReadonlySet<string>;
  options: SubstituteOptions;
  /** One clause per source only the cluster holds, taken as present with unknown values. */
  assumed: string[];
}

/** Undefined without spec.postBuild: Flux substitutes nothing then. */
export function postBuildSubstitution(
  ctx: VariableLookups,
  input: { ks: FluxKustomization; ref: ProducerRef; secret?: SecretDerived | undefined },
): PostBuildSubstitution | undefined {
  const postBuild = input.ks.spec.postBuild;
  if (!postBuild) return undefined;
  const sources = variableInput(ctx, input);
  const unknown = unknownSources(sources);
  return {
    vars: collectVariables(sources),
    secretNames: secretVariableNames(sources),
    options: {
      strict: ctx.settings.strictSubstitution,
      always: postBuild.substituteStrategy === 'Always',
      unknown: unknown.length > 0,
    },
    assumed: unknown.map(
      (ref) =>
        `the rendered cluster has no ${ref.kind} ${input.ref.namespace}/${ref.name}: variables no other source defines read as unknown-<name>`,
    ),
  };
}

/** One object substituted; a failure is a SubstitutionError naming the object. */
export function substituteObject(
  substitution: PostBuildSubstitution,
  manifest: Manifest,
  meta: { kind: string; name: string },
): Substituted {
  const { vars, options, secretNames } = substitution;
  try {
    return substituteTracked(manifest, vars, options, secretNames);
  } catch (err) {
    // substituteManifest's own errors already name the object.
    if (err instanceof SubstitutionError) throw err;
    throw new SubstitutionError(`'${meta.kind}/${meta.name}': ${errorMessage(err)}`);
  }
}

/**
 * Everything postBuildSubstitution reads, as plain data for a content key: the settings,
 * the spec's postBuild, and each source's values and Secret-derived keys as the cluster
 * rendered so far holds them.
 */
export function substitutionInputs(
  ctx: VariableLookups,
  input: { ks: FluxKustomization; ref: ProducerRef; secret?: SecretDerived | undefined },
): unknown {
  if (!input.ks.spec.postBuild) return null;
  const { inline, inlineSecret, assumeUnknown, sources } = variableInput(ctx, input);
  return {
    strict: ctx.settings.strictSubstitution,
    always: input.ks.spec.postBuild.substituteStrategy ?? null,
    inline: inline ?? null,
    inlineSecret: [...(inlineSecret ?? [])].sort(),
    assumeUnknown: assumeUnknown ?? false,
    sources: sources.map(({ ref, data, secretKeys }) => ({
      ref,
      data: data ?? null,
      secretKeys: secretKeys === undefined ? null : [...secretKeys].sort(),
    })),
  };
}

/** The variable sources, with what in them derives from a Secret. */
function variableInput(
  ctx: VariableLookups,
  input: { ks: FluxKustomization; ref: ProducerRef; secret?: SecretDerived | undefined },
): VariableInput {
  const postBuild = input.ks.spec.postBuild ?? {};
  const inline = postBuild.substitute;
  const path = ['spec', 'postBuild', 'substitute'];
  const inlineSecret = Object.entries(inline ?? {})
    .filter(([name, value]) => derivedFromSecret(input.secret, [...path, name], value))
    .map(([name]) => name);
  return {
    inline,
    inlineSecret: new Set(inlineSecret),
    assumeUnknown: ctx.settings.inClusterSources === 'assume',
    sources: (postBuild.substituteFrom ?? []).map((ref) => ({
      ref: { kind: ref.kind, name: ref.name, optional: ref.optional ?? false },
      data: ctx.configData(ref.kind, input.ref.namespace, ref.name),
      secretKeys: ctx.secretKeys(ref.kind, input.ref.namespace, ref.name),
    })),
  };
}
