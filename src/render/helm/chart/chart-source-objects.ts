/**
 * The fields of Flux source objects that chart resolution reads (HelmRepository,
 * OCIRepository, HelmChart), parsed at the door. Secret references are deliberately
 * absent: credentials never come from the repository under review.
 */
import { z } from 'zod';
import { ChartContentError } from './chart-content-error.js';

export const HelmRepositoryObject = z.looseObject({
  spec: z.looseObject({
    url: z.string().min(1),
    type: z.enum(['default', 'oci']).optional(),
    insecure: z.boolean().optional(),
  }),
});
export type HelmRepositoryObject = z.infer<typeof HelmRepositoryObject>;

export const OCIRepositoryObject = z.looseObject({
  spec: z.looseObject({
    url: z.string().min(1),
    insecure: z.boolean().optional(),
    ref: z
      .looseObject({
        tag: z.string().optional(),
        semver: z.string().optional(),
        semverFilter: z.string().optional(),
        digest: z.string().optional(),
      })
      .optional(),
  }),
});
export type OCIRepositoryObject = z.infer<typeof OCIRepositoryObject>;

export const HelmChartObject = z.looseObject({
  spec: z.looseObject({
    chart: z.string().min(1),
    version: z.string().optional(),
    sourceRef: z.looseObject({ kind: z.string(), name: z.string().min(1) }),
  }),
});
export type HelmChartObject = z.infer<typeof HelmChartObject>;

/** `schema`'s view of the object, or a ChartContentError naming the bad field. */
export function parseSourceObject<T>(
  schema: z.ZodType<T>,
  object: Record<string, unknown>,
  id: string,
): T {
  const parsed = schema.safeParse(object);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue ? `${issue.path.map(String).join('.')}: ${issue.message}` : 'invalid';
  throw new ChartContentError(`${id} is not a valid source: ${where}`);
}
