/**
 * The Flux repository the fault tests review: a cluster whose `apps` Kustomization takes
 * a database password from a Secret in the repository (postBuild.substituteFrom) into a
 * ConfigMap, so every review handles a Secret value the secret scan then looks for. Each
 * head recolours that ConfigMap and may add files of its own.
 */
import { randomBytes } from 'node:crypto';
import { bootstrap, yamlStream } from './repo.js';

export interface FaultFleet {
  /** The Secret value every render substitutes; no output may hold it. */
  secretValue: string;
  /** The world's `files` callback (see startServiceWorld). */
  files: (step: 'base' | number) => Record<string, string>;
}

const APPS = yamlStream({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system' },
  spec: {
    interval: '10m',
    path: './apps',
    prune: true,
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    postBuild: { substituteFrom: [{ kind: 'Secret', name: 'cluster-secrets' }] },
  },
});

// Text, not an object: ${DB_PASSWORD} is substituted at render time.
const config = (color: string) => `apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
  namespace: apps
data:
  color: ${color}
  dsn: postgres://web:\${DB_PASSWORD}@db.example.com:5432/web
`;

const COLORS = ['blue', 'green', 'yellow', 'purple', 'orange', 'teal', 'pink', 'grey'];

/** `extras[i]` are files head i adds (or, as '', deletes) besides its new colour. */
export function faultFleet(extras: ReadonlyArray<Record<string, string>> = []): FaultFleet {
  const secretValue = randomBytes(18).toString('base64url');
  const secret = yamlStream({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cluster-secrets', namespace: 'flux-system' },
    type: 'Opaque',
    stringData: { DB_PASSWORD: secretValue },
  });
  return {
    secretValue,
    files(step) {
      if (step === 'base') {
        return {
          'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
          'clusters/prod/cluster-secrets.yaml': secret,
          'clusters/prod/apps.yaml': APPS,
          'apps/kustomization.yaml': 'resources:\n  - config.yaml\n',
          'apps/config.yaml': config('red'),
        };
      }
      return { 'apps/config.yaml': config(COLORS[step] ?? `c${step}`), ...extras[step] };
    },
  };
}
