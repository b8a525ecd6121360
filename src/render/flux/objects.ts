/**
 * Schemas for the Flux objects the renderer reads. Only the fields fluxlens uses are
 * typed; everything else passes through untouched in the manifest.
 */
import { z } from 'zod';
import { apiGroup, type Manifest } from '../../model/index.js';

export const KUSTOMIZE_GROUP = 'kustomize.toolkit.fluxcd.io';
export const HELM_GROUP = 'helm.toolkit.fluxcd.io';
export const SOURCE_GROUP = 'source.toolkit.fluxcd.io';

const Metadata = z.looseObject({
  name: z.string().min(1),
  namespace: z.string().optional(),
});

const Selector = z.looseObject({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  labelSelector: z.string().optional(),
  annotationSelector: z.string().optional(),
});

/** The kustomize fields Flux passes through: Kustomization spec and HelmRelease post-renderers. */
export const KUSTOMIZE_OVERLAY_FIELDS = {
  patches: z.array(z.looseObject({ patch: z.string(), target: Selector.optional() })).optional(),
  patchesStrategicMerge: z.array(z.unknown()).optional(),
  patchesJson6902: z
    .array(z.looseObject({ patch: z.array(z.unknown()), target: Selector }))
    .optional(),
  images: z
    .array(
      z.looseObject({
        name: z.string(),
        newName: z.string().optional(),
        newTag: z.string().optional(),
        digest: z.string().optional(),
      }),
    )
    .optional(),
};

/** spec.commonMetadata of Kustomizations and HelmReleases. */
export const CommonMetadata = z.looseObject({
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
});

export const SubstituteReference = z.object({
  kind: z.enum(['ConfigMap', 'Secret']),
  name: z.string().min(1),
  optional: z.boolean().optional(),
});

const KustomizationSpec = z.looseObject({
  path: z.string().optional(),
  sourceRef: z.looseObject({
    kind: z.string(),
    name: z.string().min(1),
    namespace: z.string().optional(),
  }),
  suspend: z.boolean().optional(),
  prune: z.boolean().optional(),
  dependsOn: z
    .array(z.looseObject({ name: z.string(), namespace: z.string().optional() }))
    .optional(),
  targetNamespace: z.string().optional(),
  namePrefix: z.string().optional(),
  nameSuffix: z.string().optional(),
  ...KUSTOMIZE_OVERLAY_FIELDS,
  components: z.array(z.string()).optional(),
  ignoreMissingComponents: z.boolean().optional(),
  buildMetadata: z.array(z.string()).optional(),
  commonMetadata: CommonMetadata.optional(),
  postBuild: z
    .looseObject({
      substitute: z.record(z.string(), z.string()).optional(),
      substituteFrom: z.array(SubstituteReference).optional(),
      substituteStrategy: z.enum(['WithVariables', 'Always']).optional(),
    })
    .optional(),
});

export const FluxKustomization = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('Kustomization'),
  metadata: Metadata,
  spec: KustomizationSpec,
});
export type FluxKustomization = z.infer<typeof FluxKustomization>;

/** Source kinds a Kustomization's sourceRef may name. */
export const SOURCE_KINDS = [
  'GitRepository',
  'OCIRepository',
  'Bucket',
  'ExternalArtifact',
] as const;
/** Every Flux source kind fluxlens records, including the Helm ones. */
export const ALL_SOURCE_KINDS = [...SOURCE_KINDS, 'HelmRepository', 'HelmChart'] as const;

/** The API group; an apiVersion without a slash is a version of the core group. */
function groupOf(manifest: Manifest): string {
  const apiVersion = manifest['apiVersion'];
  return typeof apiVersion === 'string' ? apiGroup(apiVersion) : '';
}

export function isFluxKustomization(manifest: Manifest): boolean {
  return manifest['kind'] === 'Kustomization' && groupOf(manifest) === KUSTOMIZE_GROUP;
}

export function isHelmRelease(manifest: Manifest): boolean {
  return manifest['kind'] === 'HelmRelease' && groupOf(manifest) === HELM_GROUP;
}

export function isFluxSource(manifest: Manifest): boolean {
  const kind = manifest['kind'];
  return (
    typeof kind === 'string' &&
    (ALL_SOURCE_KINDS as readonly string[]).includes(kind) &&
    groupOf(manifest) === SOURCE_GROUP
  );
}

/** A readable one-line summary of a zod error, naming the failing field. */
export function describeSchemaError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid object';
  const path = issue.path.map(String).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** A Flux object or input as written in a file of the repository. */
export interface FoundObject {
  manifest: Manifest;
  /** Path relative to the repository root. */
  file: string;
  line: number;
}

export interface Discovery {
  /** The entry folder, normalised as Flux normalises spec.path ('.' for the root). */
  entry: string;
  kustomizations: FoundObject[];
  helmReleases: FoundObject[];
  sources: FoundObject[];
  configData: FoundObject[];
  /** flux-operator FluxInstances, whose spec.sync the operator turns into a Kustomization. */
  instances: FoundObject[];
}
