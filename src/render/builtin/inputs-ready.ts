/**
 * Whether a producer's inputs that other producers render exist yet, so that it is built
 * after them (Producers.nextRound): the ConfigMaps and Secrets it substitutes or takes
 * values from, the ArtifactGenerator of the ExternalArtifact a Kustomization reads, the
 * ResourceSetInputProviders a ResourceSet names.
 */
import { FluxKustomization, generatesArtifact } from '../flux/index.js';
import { HelmRelease } from '../helm/index.js';
import type { Manifest, ProducerRef } from '../../model/index.js';

/** What the rendered cluster holds so far. */
export interface ClusterSoFar {
  clusterObject(kind: string, namespace: string, name: string): Manifest | undefined;
  objectsOfKind(kind: string, namespace: string): Manifest[];
}

export function inputsReady(ref: ProducerRef, manifest: Manifest, cluster: ClusterSoFar): boolean {
  if (ref.kind === 'ResourceSet') return providersReady(ref, manifest, cluster);
  if (!artifactReady(ref, manifest, cluster)) return false;
  const refs =
    ref.kind === 'HelmRelease'
      ? (HelmRelease.safeParse(manifest).data?.spec.valuesFrom ?? [])
      : (FluxKustomization.safeParse(manifest).data?.spec.postBuild?.substituteFrom ?? []);
  return refs.every((r) => cluster.clusterObject(r.kind, ref.namespace, r.name) !== undefined);
}

function providersReady(ref: ProducerRef, manifest: Manifest, cluster: ClusterSoFar): boolean {
  const spec = (manifest['spec'] ?? {}) as Record<string, unknown>;
  const from = Array.isArray(spec['inputsFrom']) ? (spec['inputsFrom'] as unknown[]) : [];
  return from.every((item) => {
    const name = (item as Record<string, unknown> | null)?.['name'];
    return (
      typeof name !== 'string' ||
      cluster.clusterObject('ResourceSetInputProvider', ref.namespace, name) !== undefined
    );
  });
}

function artifactReady(ref: ProducerRef, manifest: Manifest, cluster: ClusterSoFar): boolean {
  if (ref.kind !== 'Kustomization') return true;
  const sourceRef = FluxKustomization.safeParse(manifest).data?.spec.sourceRef;
  if (sourceRef?.kind !== 'ExternalArtifact') return true;
  const namespace = sourceRef.namespace ?? ref.namespace;
  const generators = cluster.objectsOfKind('ArtifactGenerator', namespace);
  return generators.some((g) => generatesArtifact(g, sourceRef.name));
}
