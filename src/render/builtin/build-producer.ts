/**
 * Builds one producer, whatever its kind: a Kustomization through kustomize, a
 * HelmRelease through its chart. The graph rules (order, parents, duplicates) are
 * producers.ts's business; this file only turns one definition into objects.
 */
import { buildHelmRelease, type HelmBuildContext } from './build-helm-release.js';
import { buildKustomization } from './build-kustomization.js';
import type { BuildContext } from './build-types.js';
import { withInputKey } from './reuse/index.js';
import {
  FluxKustomization,
  SOURCE_KINDS,
  type Sources,
  describeSchemaError,
  expandResourceSet,
  resolveInside,
} from '../flux/index.js';
import type {
  Manifest,
  ProducerRef,
  RenderedObject,
  RenderErrorTags,
  SecretDerived,
} from '../../model/index.js';

export interface ProducerBuildDeps {
  sources: Sources;
  /** The objects of a kind in a namespace of the cluster rendered so far. */
  objectsOfKind: (kind: string, namespace: string) => Manifest[];
  kustomize: BuildContext;
  helm: HelmBuildContext;
}

export interface BuildTarget {
  ref: ProducerRef;
  manifest: Manifest;
  /** Where the definition holds text derived from a Secret (a parent substituted it). */
  secret?: SecretDerived | undefined;
  /** Normalised spec.path of a Kustomization. */
  path: string;
  /** Where the definition was written, for error attribution. */
  file: string | undefined;
}

/** `inputKey`: Producer.inputKey, when the build was keyed. */
export type BuildResult =
  | {
      objects: RenderedObject[];
      source: string;
      path?: string;
      assumed?: string[];
      inputKey?: string;
    }
  | ({ error: string; file?: string; source: string; inputKey?: string } & RenderErrorTags)
  | { skipped: string; source: string };

export async function buildProducer(
  target: BuildTarget,
  deps: ProducerBuildDeps,
): Promise<BuildResult> {
  if (target.ref.kind === 'HelmRelease') {
    const outcome = await buildHelmRelease(deps.helm, target.ref, target.manifest, target.secret);
    if ('error' in outcome) {
      const { error, inputKey, ...tags } = outcome;
      return withInputKey(withFile(target, error, '', tags), inputKey);
    }
    const { objects, chart, assumed, inputKey } = outcome;
    const built = assumed ? { objects, source: chart, assumed } : { objects, source: chart };
    return withInputKey(built, inputKey);
  }
  if (target.ref.kind === 'ResourceSet') return buildResourceSet(target, deps);
  return buildFluxKustomization(target, deps);
}

/**
 * A ResourceSet's objects, expanded from its templates; text a parent substituted from a
 * Secret into the set stays hidden in every object it expands to.
 */
function buildResourceSet(target: BuildTarget, deps: ProducerBuildDeps): BuildResult {
  const expanded = expandResourceSet(target.manifest, target.ref.namespace, (ns) =>
    deps.objectsOfKind('ResourceSetInputProvider', ns),
  );
  if ('notAssessed' in expanded) return { skipped: expanded.notAssessed, source: '' };
  if ('error' in expanded) return withFile(target, expanded.error, '');
  const secret = target.secret && { texts: target.secret.texts, fields: [] };
  const objects = expanded.objects.map((manifest) => ({
    producer: target.ref,
    manifest,
    ...(secret ? { secret } : {}),
  }));
  return { objects, source: '' };
}

function withFile(
  target: BuildTarget,
  error: string,
  source: string,
  tags: RenderErrorTags = {},
): BuildResult {
  return target.file ? { error, file: target.file, source, ...tags } : { error, source, ...tags };
}

async function buildFluxKustomization(
  target: BuildTarget,
  deps: ProducerBuildDeps,
): Promise<BuildResult> {
  const parsed = FluxKustomization.safeParse(target.manifest);
  if (!parsed.success) {
    return withFile(target, `invalid Kustomization: ${describeSchemaError(parsed.error)}`, '');
  }
  const ks = parsed.data;
  const sourceRef = ks.spec.sourceRef;
  if (!(SOURCE_KINDS as readonly string[]).includes(sourceRef.kind)) {
    return withFile(target, `unsupported sourceRef kind '${sourceRef.kind}'`, '');
  }
  const resolved = await deps.sources.resolve({
    kind: sourceRef.kind,
    name: sourceRef.name,
    namespace: sourceRef.namespace ?? target.ref.namespace,
  });
  if (resolved.kind === 'skipped') return { skipped: resolved.reason, source: resolved.id };
  if (resolved.kind === 'failed') return withFile(target, resolved.error, resolved.id);
  const inside = await resolveInside(resolved.root, target.path);
  if ('error' in inside) return withFile(target, inside.error, resolved.id);
  const outcome = await buildKustomization(deps.kustomize, {
    ks,
    secret: target.secret,
    ref: target.ref,
    sourceRoot: resolved.root,
    filePrefix: resolved.isRepository ? '' : `${resolved.id}:`,
    sourceIgnore: resolved.ignore,
    path: target.path,
  });
  if ('error' in outcome) {
    const { error, file, code } = outcome;
    const failed = {
      error,
      ...(file ? { file } : {}),
      source: resolved.id,
      ...(code === undefined ? {} : { code }),
    };
    return withInputKey(failed, outcome.inputKey);
  }
  const { objects, assumed } = outcome;
  const built = assumed
    ? { objects, source: resolved.id, assumed }
    : { objects, source: resolved.id };
  return withInputKey(built, outcome.inputKey);
}
