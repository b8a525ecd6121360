/**
 * The objects of one synthetic app, as a Flux repository holds them: a kustomize folder
 * (Deployment, Service, config, sometimes a CronJob, an Ingress or generated settings),
 * the Flux Kustomization that applies it, and the HelmReleases that live beside it.
 * Every value that varies comes from the fleet's seeded sequence, in a fixed order.
 */
import { stringify } from 'yaml';
import type { Random } from './random.js';
import { cronJob, deployment, helmRelease, ingress, service } from './fleet-manifests.js';

export const CHARTS = ['bench-web', 'bench-worker', 'bench-cache', 'bench-job'] as const;
export type ChartName = (typeof CHARTS)[number];
export const CHART_VERSIONS = ['1.0.0', '1.1.0'] as const;

/** The shared components, and which apps use them (by position in the fleet). */
export const COMPONENTS = {
  common: (_index: number) => true,
  'network-policy': (index: number) => index % 2 === 0,
  monitoring: (index: number) => index % 3 === 0,
} as const;

const WORDS = [
  'api',
  'auth',
  'billing',
  'cart',
  'catalog',
  'export',
  'gateway',
  'ingest',
  'ledger',
  'mailer',
  'notify',
  'report',
  'scheduler',
  'search',
  'render',
];

export interface Release {
  name: string;
  chart: ChartName;
  version: string;
  values: Record<string, unknown>;
}

export interface App {
  index: number;
  name: string;
  team: string;
  tag: string;
  replicas: number;
  port: number;
  sidecar: boolean;
  cronJob: boolean;
  ingress: boolean;
  settings: string[] | undefined;
  config: Record<string, string>;
  releases: Release[];
}

export function makeApp(random: Random, index: number, team: string): App {
  const name = `${random.pick(WORDS)}-${String(index).padStart(3, '0')}`;
  const config: Record<string, string> = {};
  const keys = random.int(2, 10);
  for (let k = 0; k < keys; k++) {
    config[`SETTING_${k}`] =
      k % 3 === 0 ? `https://${name}-${k}.\${DOMAIN}` : `value-${random.int(0, 9999)}`;
  }
  return {
    index,
    name,
    team,
    tag: `1.${random.int(0, 40)}.${random.int(0, 9)}`,
    replicas: random.int(1, 4),
    port: random.pick([8080, 8000, 3000, 9000]),
    sidecar: random.chance(0.3),
    cronJob: random.chance(0.2),
    ingress: random.chance(0.3),
    settings: random.chance(0.25)
      ? [`MODE=${random.pick(['fast', 'safe', 'batch'])}`, `SHARDS=${random.int(1, 16)}`]
      : undefined,
    config,
    releases: [],
  };
}

export function makeRelease(random: Random, app: App, number: number): Release {
  const chart = CHARTS[number % CHARTS.length] ?? 'bench-web';
  const values: Record<string, unknown> = {
    replicaCount: random.int(1, 3),
    image: {
      repository: `registry.example.com/${app.team}/${chart}`,
      tag: `2.${random.int(0, 20)}.0`,
    },
    cluster: '${CLUSTER_NAME}',
    extraLabels: { team: '${TEAM}' },
    config: { owner: app.name, region: '${REGION}' },
  };
  if (chart === 'bench-web')
    values['ingress'] = { enabled: random.chance(0.5), host: `${app.name}-${number}.\${DOMAIN}` };
  if (chart === 'bench-job') values['schedule'] = `${random.int(0, 59)} ${random.int(0, 23)} * * *`;
  if (chart === 'bench-cache') values['persistence'] = { size: `${random.pick([1, 5, 10, 20])}Gi` };
  return {
    name: `${app.name}-${chart.slice('bench-'.length)}-${number}`,
    chart,
    version: CHART_VERSIONS[0],
    values,
  };
}

/** A multi-document YAML file. */
export function yamlFile(...docs: unknown[]): string {
  return docs.map((d) => stringify(d, { lineWidth: 0 })).join('---\n');
}

export function appFolder(app: App): string {
  return `apps/${app.team}/${app.name}`;
}

/** The Flux Kustomization of an app: substitution from the cluster's variables and its own. */
export function appKustomization(app: App): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name: app.name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path: `./${appFolder(app)}`,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      dependsOn: [{ name: 'namespaces' }],
      postBuild: {
        substitute: { APP_NAME: app.name, TEAM: app.team },
        substituteFrom: [{ kind: 'ConfigMap', name: 'cluster-vars' }],
      },
    },
  };
}

/** The files of the app's folder; `tag` and `releases` are what PR branches change. */
export function appFiles(app: App, tag = app.tag, releases = app.releases): Record<string, string> {
  const dir = appFolder(app);
  const resources = ['deployment.yaml', 'service.yaml', 'config.yaml'];
  const files: Record<string, string> = {
    [`${dir}/deployment.yaml`]: yamlFile(deployment(app, tag)),
    [`${dir}/service.yaml`]: yamlFile(service(app)),
    [`${dir}/config.yaml`]: yamlFile({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${app.name}-config` },
      data: app.config,
    }),
  };
  if (app.cronJob) {
    resources.push('cronjob.yaml');
    files[`${dir}/cronjob.yaml`] = yamlFile(cronJob(app, tag));
  }
  if (app.ingress) {
    resources.push('ingress.yaml');
    files[`${dir}/ingress.yaml`] = yamlFile(ingress(app));
  }
  if (releases.length > 0) {
    resources.push('helmreleases.yaml');
    files[`${dir}/helmreleases.yaml`] = yamlFile(...releases.map(helmRelease));
  }
  const components = Object.entries(COMPONENTS)
    .filter(([, uses]) => uses(app.index))
    .map(([name]) => `../../../components/${name}`);
  const kustomization: Record<string, unknown> = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: app.team,
    resources,
    components,
  };
  if (app.settings) {
    kustomization['configMapGenerator'] = [
      { name: `${app.name}-settings`, literals: app.settings },
    ];
  }
  files[`${dir}/kustomization.yaml`] = yamlFile(kustomization);
  return files;
}
