/** How every step names an object in text: diffs, findings, reports. */

/** `Kind/namespace/name`, or `Kind/name` for a cluster-scoped object. */
export function resourceLabel(resource: {
  kind: string;
  namespace?: string | undefined;
  name: string;
}): string {
  return resource.namespace
    ? `${resource.kind}/${resource.namespace}/${resource.name}`
    : `${resource.kind}/${resource.name}`;
}
