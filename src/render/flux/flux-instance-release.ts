/**
 * The FluxInstance of a HelmRelease of flux-operator's flux-instance chart. Such a cluster
 * writes no FluxInstance file: the chart renders one from the release's values, and its
 * spec.sync is what applies the cluster's folder. Discovery runs before any chart renders
 * (and the chart may be out of reach), so the instance is derived from the values here,
 * the way the chart's template writes it, for withInstanceSyncs to read like a file's.
 */
import { z } from 'zod';
import { isRecord, objectMeta, type Manifest } from '../../model/index.js';
import type { Discovery, FoundObject } from './discover.js';
import { isHelmRelease } from './objects.js';

const CHART = 'flux-instance';

const Release = z.looseObject({
  metadata: z.looseObject({ name: z.string().min(1), namespace: z.string().min(1).optional() }),
  spec: z.looseObject({
    targetNamespace: z.string().optional(),
    chart: z.looseObject({ spec: z.looseObject({ chart: z.string() }) }).optional(),
    chartRef: z
      .looseObject({ kind: z.string(), name: z.string(), namespace: z.string().optional() })
      .optional(),
    values: z
      .looseObject({
        fullnameOverride: z.unknown().optional(),
        instance: z.looseObject({ sync: z.record(z.string(), z.unknown()).optional() }).optional(),
      })
      .optional(),
  }),
});
type Release = z.infer<typeof Release>;

/**
 * The FluxInstances the flux-instance chart would render for the HelmReleases in `found`,
 * at each release's file and line; none where a file already defines an instance of the
 * same name and namespace.
 */
export function fluxInstanceReleases(found: Discovery): FoundObject[] {
  // An instance file without a namespace lands in the operator's, as instanceSync reads it.
  const keyOf = (m: Manifest): string => {
    const meta = objectMeta(m);
    return `${meta.namespace ?? 'flux-system'}/${meta.name}`;
  };
  const defined = new Set(found.instances.map((f) => keyOf(f.manifest)));
  const derived: FoundObject[] = [];
  for (const { manifest, file, line } of found.helmReleases) {
    const instance = releaseInstance(manifest, found.sources);
    if (instance === undefined || defined.has(keyOf(instance))) continue;
    defined.add(keyOf(instance));
    derived.push({ manifest: instance, file, line });
  }
  return derived;
}

/**
 * The chart's FluxInstance, from the release's inline values only: valuesFrom names
 * ConfigMaps and Secrets that other producers may render later, which discovery cannot
 * read. Named by the chart's fullnameOverride (`flux` unless set), in the release's namespace.
 */
function releaseInstance(
  manifest: Manifest,
  sources: readonly FoundObject[],
): Manifest | undefined {
  if (!isHelmRelease(manifest)) return undefined;
  const parsed = Release.safeParse(manifest);
  if (!parsed.success || !isFluxInstanceChart(parsed.data, sources)) return undefined;
  const values = parsed.data.spec.values;
  const sync = withoutEmpty(values?.instance?.sync ?? {});
  // The chart writes spec.sync only when the values give a URL.
  if (sync['url'] === undefined) return undefined;
  const namespace =
    parsed.data.spec.targetNamespace || (parsed.data.metadata.namespace ?? 'default');
  const name = typeof values?.fullnameOverride === 'string' ? values.fullnameOverride : '';
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'FluxInstance',
    metadata: { name: name || 'flux', namespace },
    spec: { sync: { kind: 'GitRepository', ...sync } },
  };
}

/** flux-instance by chart name, or a chartRef to an OCIRepository of that chart. */
function isFluxInstanceChart(release: Release, sources: readonly FoundObject[]): boolean {
  const { chart, chartRef } = release.spec;
  if (chart?.spec.chart === CHART) return true;
  if (chartRef?.kind !== 'OCIRepository') return false;
  const namespace = chartRef.namespace ?? release.metadata.namespace ?? 'default';
  return sources.some(({ manifest }) => {
    const meta = objectMeta(manifest);
    const spec = manifest['spec'];
    return (
      meta.kind === 'OCIRepository' &&
      meta.name === chartRef.name &&
      (meta.namespace ?? 'default') === namespace &&
      isRecord(spec) &&
      typeof spec['url'] === 'string' &&
      spec['url'].replace(/\/+$/, '').endsWith(`/${CHART}`)
    );
  });
}

/** The chart's defaults are empty strings, and its template leaves those fields out. */
function withoutEmpty(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).filter(([, v]) => v !== '' && v !== null && v !== undefined),
  );
}
