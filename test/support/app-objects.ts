/**
 * Objects of the `apps` namespace that the end-to-end reviews change: a ConfigMap (a
 * changed object) and a PersistentVolumeClaim (deleting it is a data-loss danger).
 */
export const appConfigMap = (color: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'app-config', namespace: 'apps' },
  data: { color },
});

export const appClaim = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'app-data', namespace: 'apps' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
};
