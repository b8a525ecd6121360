/**
 * The `fluxlens render` output formats. Both redact every Secret value: Secret objects,
 * Secret values found in other objects, and whatever text a producer derived from one
 * (RenderedObject.secret); error messages too.
 */
import {
  type Manifest,
  type RenderedCluster,
  type RenderedObject,
  stringifyStream,
} from '../model/index.js';
import {
  REDACTED,
  type SecretValueIndex,
  redactManifest,
  redactRenderError,
  redactText,
  secretValuesOf,
} from '../redact/index.js';

export const RENDER_SCHEMA_VERSION = 1;

function redacted(object: RenderedObject, secrets: SecretValueIndex): Manifest {
  return redactManifest(object.manifest, secrets, object.secret);
}

export function renderToYaml(cluster: RenderedCluster): string {
  const secrets = secretValuesOf(cluster);
  return stringifyStream(cluster.objects.map((o) => redacted(o, secrets)));
}

export function renderToJson(cluster: RenderedCluster): string {
  const secrets = secretValuesOf(cluster);
  const body = {
    schemaVersion: RENDER_SCHEMA_VERSION,
    producers: cluster.producers.map((p) => ({
      kind: p.kind,
      namespace: p.namespace,
      name: p.name,
      path: p.path,
      source: p.source,
      suspend: p.suspend,
      prune: p.prune,
      dependsOn: p.dependsOn,
      ...(p.error !== undefined ? { error: redactText(p.error, REDACTED, secrets) } : {}),
      ...(p.skipped !== undefined ? { skipped: p.skipped } : {}),
      ...(p.assumed !== undefined ? { assumed: p.assumed } : {}),
    })),
    objects: cluster.objects.map((o) => ({
      producer: { kind: o.producer.kind, namespace: o.producer.namespace, name: o.producer.name },
      ...(o.file !== undefined ? { file: o.file } : {}),
      manifest: redacted(o, secrets),
    })),
    errors: cluster.errors.map((e) => redactRenderError(e, secrets)),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
