/**
 * flux-operator FluxInstances that a producer renders (the flux-instance chart, or any
 * build whose output holds one): their sync source and Kustomization are known only once
 * that render is done, so they are derived from its output, never at discovery, where a
 * release's namespace or values may still come from a parent.
 */
import {
  type InstanceSync,
  installsFluxInstance,
  releaseSyncPath,
  reviewedInstanceSync,
} from '../flux/index.js';
import type { Manifest, RenderedObject } from '../../model/index.js';

/** The syncs of the FluxInstances among `objects` whose sync path lies in the reviewed tree. */
export function instanceSyncsOf(
  objects: readonly RenderedObject[],
  entry: string,
): Array<{ sync: InstanceSync; object: RenderedObject }> {
  return objects.flatMap((object) => {
    const sync = reviewedInstanceSync(object.manifest, entry);
    return sync === undefined ? [] : [{ sync, object }];
  });
}

/**
 * What a flux-instance release that could not render leaves out, for its error: the
 * FluxInstance, and so the Kustomization the operator would sync the cluster's folder with;
 * nothing when another Kustomization of the render applies that folder (`applied`).
 */
export function unrenderedInstanceNote(
  release: Manifest,
  lookup: (kind: string, namespace: string, name: string) => Manifest | undefined,
  applied: (path: string) => boolean,
): string | undefined {
  if (!installsFluxInstance(release, lookup)) return undefined;
  const path = releaseSyncPath(release);
  if (path !== undefined && applied(path)) return undefined;
  const folder = path === undefined ? 'the folder it syncs' : `'${path}'`;
  return (
    `the FluxInstance this chart renders is missing with it, so nothing rendered applies ` +
    `${folder} as flux-operator would: objects only that sync applies are not assessed`
  );
}
