/**
 * The HelmRelease fields helm-controller acts on (v2, v2beta1, v2beta2), and the names
 * it derives from them. Only what the renderer reads is typed; the rest passes through.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { CommonMetadata, KUSTOMIZE_OVERLAY_FIELDS } from '../flux/index.js';

const CrossNamespaceRef = z.looseObject({
  kind: z.string(),
  name: z.string().min(1),
  namespace: z.string().optional(),
});

const CrdsPolicy = z.enum(['Skip', 'Create', 'CreateReplace']);

export const ValuesReference = z.looseObject({
  kind: z.enum(['ConfigMap', 'Secret']),
  name: z.string().min(1),
  valuesKey: z.string().optional(),
  targetPath: z.string().optional(),
  optional: z.boolean().optional(),
  literal: z.boolean().optional(),
});
export type ValuesReference = z.infer<typeof ValuesReference>;

export const PostRenderer = z.looseObject({
  kustomize: z.looseObject(KUSTOMIZE_OVERLAY_FIELDS).optional(),
});
export type PostRenderer = z.infer<typeof PostRenderer>;

export const HelmChartTemplate = z.looseObject({
  metadata: z
    .looseObject({
      labels: z.record(z.string(), z.string()).optional(),
      annotations: z.record(z.string(), z.string()).optional(),
    })
    .optional(),
  spec: z.looseObject({
    chart: z.string().min(1),
    version: z.string().optional(),
    sourceRef: CrossNamespaceRef,
    valuesFiles: z.array(z.string()).optional(),
    valuesFile: z.string().optional(),
    ignoreMissingValuesFiles: z.boolean().optional(),
    reconcileStrategy: z.string().optional(),
  }),
});
export type HelmChartTemplate = z.infer<typeof HelmChartTemplate>;

export const HelmRelease = z.looseObject({
  apiVersion: z.string(),
  kind: z.literal('HelmRelease'),
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().optional() }),
  spec: z.looseObject({
    chart: HelmChartTemplate.optional(),
    chartRef: CrossNamespaceRef.optional(),
    suspend: z.boolean().optional(),
    releaseName: z.string().optional(),
    targetNamespace: z.string().optional(),
    storageNamespace: z.string().optional(),
    dependsOn: z
      .array(z.looseObject({ name: z.string(), namespace: z.string().optional() }))
      .optional(),
    install: z
      .looseObject({
        crds: CrdsPolicy.optional(),
        skipCRDs: z.boolean().optional(),
        disableHooks: z.boolean().optional(),
        disableOpenAPIValidation: z.boolean().optional(),
        disableSchemaValidation: z.boolean().optional(),
        createNamespace: z.boolean().optional(),
      })
      .optional(),
    upgrade: z
      .looseObject({
        crds: CrdsPolicy.optional(),
        disableHooks: z.boolean().optional(),
        disableOpenAPIValidation: z.boolean().optional(),
        disableSchemaValidation: z.boolean().optional(),
      })
      .optional(),
    test: z.looseObject({ enable: z.boolean().optional() }).optional(),
    postRenderStrategy: z.string().optional(),
    valuesFrom: z.array(ValuesReference).optional(),
    // Kept as parsed, not rebuilt key by key as z.record would: that drops a `__proto__` key
    // and refuses a mapping with a `constructor` key, both plain chart values to Flux.
    values: z
      .custom<Record<string, unknown>>(
        (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
        'expected a mapping',
      )
      .nullable()
      .optional(),
    commonMetadata: CommonMetadata.optional(),
    postRenderers: z.array(PostRenderer).optional(),
  }),
});
export type HelmRelease = z.infer<typeof HelmRelease>;

/** Helm's limit on release names; longer names are shortened as helm-controller does. */
const MAX_RELEASE_NAME = 53;
const SHORT_HASH = 12;

/** spec.releaseName, else [targetNamespace-]name, shortened with a hash above 53 characters. */
export function releaseName(hr: HelmRelease): string {
  const name =
    hr.spec.releaseName ||
    (hr.spec.targetNamespace ? `${hr.spec.targetNamespace}-${hr.metadata.name}` : hr.metadata.name);
  return shortenName(name);
}

export function shortenName(name: string): string {
  if (name.length <= MAX_RELEASE_NAME) return name;
  const sum = createHash('sha256').update(name).digest('hex');
  return `${name.slice(0, MAX_RELEASE_NAME - SHORT_HASH - 1)}-${sum.slice(0, SHORT_HASH)}`;
}

/** Where the chart's objects go: spec.targetNamespace, else the HelmRelease's namespace. */
export function releaseNamespace(hr: HelmRelease, defaultNamespace = 'default'): string {
  return hr.spec.targetNamespace || (hr.metadata.namespace ?? defaultNamespace);
}

/** Where helm stores the release: spec.storageNamespace, else the HelmRelease's namespace. */
export function storageNamespace(hr: HelmRelease, defaultNamespace = 'default'): string {
  return hr.spec.storageNamespace || (hr.metadata.namespace ?? defaultNamespace);
}
