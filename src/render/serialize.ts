/** The `fluxlens render` output formats; both redact Secret values. */
import { type RenderedCluster, stringifyStream } from '../model/index.js';
import { redactSecret } from '../redact/index.js';

export const RENDER_SCHEMA_VERSION = 1;

export function renderToYaml(cluster: RenderedCluster): string {
  return stringifyStream(cluster.objects.map((o) => redactSecret(o.manifest)));
}

export function renderToJson(cluster: RenderedCluster): string {
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
      ...(p.error !== undefined ? { error: p.error } : {}),
      ...(p.skipped !== undefined ? { skipped: p.skipped } : {}),
    })),
    objects: cluster.objects.map((o) => ({
      producer: { kind: o.producer.kind, namespace: o.producer.namespace, name: o.producer.name },
      ...(o.file !== undefined ? { file: o.file } : {}),
      manifest: redactSecret(o.manifest),
    })),
    errors: cluster.errors,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}
