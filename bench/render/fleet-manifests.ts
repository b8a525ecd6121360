/**
 * The Kubernetes and Flux objects an app's folder holds, written as a person would: labels
 * from the app, values to substitute (${...}) where Flux fills them in per cluster.
 */
import type { App, Release } from './fleet-apps.js';

/** The HelmRepository every release takes its chart from. */
export const CHART_REPOSITORY = 'bench-charts';

function labels(app: App): Record<string, string> {
  return { 'app.kubernetes.io/name': app.name, 'app.kubernetes.io/part-of': '${TEAM}' };
}

export function deployment(app: App, tag: string): Record<string, unknown> {
  const containers: unknown[] = [
    {
      name: 'app',
      image: `registry.example.com/${app.team}/${app.name}:${tag}`,
      ports: [{ name: 'http', containerPort: app.port }],
      env: [
        { name: 'CLUSTER', value: '${CLUSTER_NAME}' },
        { name: 'LOG_LEVEL', value: '${LOG_LEVEL:=info}' },
        { name: 'PUBLIC_URL', value: `https://${app.name}.\${DOMAIN}` },
      ],
      envFrom: [{ configMapRef: { name: `${app.name}-config` } }],
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
      readinessProbe: { httpGet: { path: '/healthz', port: 'http' } },
    },
  ];
  if (app.sidecar) {
    containers.push({
      name: 'log-shipper',
      image: 'registry.example.com/platform/log-shipper:3.2.1',
      args: ['--cluster=${CLUSTER_NAME}', `--app=${app.name}`],
      resources: { requests: { cpu: '10m', memory: '32Mi' } },
    });
  }
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: app.name, labels: labels(app) },
    spec: {
      replicas: app.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': app.name } },
      template: {
        metadata: {
          labels: labels(app),
          annotations: { 'bench.fluxlens.io/cluster': '${CLUSTER_NAME}' },
        },
        spec: { containers },
      },
    },
  };
}

export function service(app: App): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: app.name, labels: labels(app) },
    spec: {
      selector: { 'app.kubernetes.io/name': app.name },
      ports: [{ name: 'http', port: 80, targetPort: 'http' }],
    },
  };
}

export function cronJob(app: App, tag: string): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: `${app.name}-cleanup`, labels: labels(app) },
    spec: {
      schedule: `${app.index % 60} 3 * * *`,
      jobTemplate: {
        spec: {
          template: {
            spec: {
              restartPolicy: 'OnFailure',
              containers: [
                {
                  name: 'cleanup',
                  image: `registry.example.com/${app.team}/${app.name}:${tag}`,
                  args: ['cleanup', '--older-than=7d'],
                },
              ],
            },
          },
        },
      },
    },
  };
}

export function ingress(app: App): Record<string, unknown> {
  const host = `${app.name}.\${DOMAIN}`;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: app.name, labels: labels(app) },
    spec: {
      ingressClassName: 'internal',
      tls: [{ hosts: [host], secretName: `${app.name}-tls` }],
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: app.name, port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
  };
}

export function helmRelease(release: Release): Record<string, unknown> {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name: release.name },
    spec: {
      interval: '30m',
      chart: {
        spec: {
          chart: release.chart,
          version: release.version,
          sourceRef: { kind: 'HelmRepository', name: CHART_REPOSITORY, namespace: 'flux-system' },
        },
      },
      values: release.values,
    },
  };
}
