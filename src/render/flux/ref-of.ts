/** The ProducerRef of a Flux object, as both engines key the producers they find. */
import { objectMeta, type Manifest, type ProducerRef } from '../../model/index.js';

/**
 * A Kustomization's, HelmRelease's or ResourceSet's ref (any other kind reads as a
 * Kustomization);
 * `fallbackNamespace` when it has no metadata.namespace: `default` for a file, the
 * parent's namespace for an object a parent applies.
 */
export function refOf(manifest: Manifest, fallbackNamespace: string): ProducerRef {
  const meta = objectMeta(manifest);
  const kind =
    meta.kind === 'HelmRelease' || meta.kind === 'ResourceSet' ? meta.kind : 'Kustomization';
  return { kind, namespace: meta.namespace ?? fallbackNamespace, name: meta.name };
}
