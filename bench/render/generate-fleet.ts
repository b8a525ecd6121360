/**
 * A synthetic Flux repository, the same for the same options on every machine: one
 * cluster (clusters/prod) whose flux-system Kustomization applies a namespaces
 * Kustomization and one Kustomization per app, apps that share kustomize components and
 * take substitution variables from the cluster, and HelmReleases on charts of a
 * HelmRepository at `chartRepositoryUrl`. Plus a PR branch per scenario, as the files it
 * writes over the base. Pure: writing it to disk and git is write-fleet.ts's job.
 */
import {
  appFiles,
  appFolder,
  appKustomization,
  CHART_VERSIONS,
  COMPONENTS,
  makeApp,
  makeRelease,
  yamlFile,
  type App,
} from './fleet-apps.js';
import { CHART_REPOSITORY } from './fleet-manifests.js';
import { Random } from './random.js';

export const FLEET_ENTRY = 'clusters/prod';

export interface FleetOptions {
  seed: number;
  /** Flux Kustomizations in all: flux-system, namespaces and one per app. */
  kustomizations: number;
  releases: number;
  chartRepositoryUrl: string;
}

export type BranchScenario = 'one-file' | 'fan-out' | 'chart-bump';

export interface FleetBranch {
  name: `pr/${BranchScenario}`;
  scenario: BranchScenario;
  message: string;
  /** Files the branch writes over the base (repository-relative paths). */
  files: Record<string, string>;
}

export interface Fleet {
  files: Record<string, string>;
  branches: FleetBranch[];
  facts: {
    kustomizations: number;
    releases: number;
    teams: number;
    /** Apps whose Kustomization the fan-out branch changes (users of the edited component). */
    fanOut: number;
    oneFile: string;
    chartBump: string;
  };
}

const CLUSTER_VARS = { CLUSTER_NAME: 'prod-eu-1', DOMAIN: 'prod.example.com', REGION: 'eu-west-1' };

export function generateFleet(options: FleetOptions): Fleet {
  if (!Number.isInteger(options.kustomizations) || options.kustomizations < 3) {
    throw new Error('a fleet needs at least 3 Kustomizations (flux-system, namespaces, an app)');
  }
  if (!Number.isInteger(options.releases) || options.releases < 1) {
    throw new Error('a fleet needs at least 1 HelmRelease');
  }
  const random = new Random(options.seed);
  const appCount = options.kustomizations - 2;
  const teamCount = Math.max(1, Math.ceil(appCount / 25));
  const teams = Array.from({ length: teamCount }, (_, t) => `team-${String(t).padStart(2, '0')}`);
  const apps = Array.from({ length: appCount }, (_, i) =>
    makeApp(random, i, teams[i % teamCount] ?? 'team-00'),
  );
  for (let r = 0; r < options.releases; r++) {
    const app = apps[Math.floor((r * appCount) / options.releases) % appCount];
    app?.releases.push(makeRelease(random, app, r));
  }
  const files: Record<string, string> = {
    ...clusterFiles(options, teams, apps),
    ...componentFiles(false),
    'infrastructure/namespaces/kustomization.yaml': yamlFile({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      resources: ['namespaces.yaml'],
    }),
    'infrastructure/namespaces/namespaces.yaml': yamlFile(
      ...teams.map((name) => ({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name, labels: { team: name } },
      })),
    ),
  };
  for (const app of apps) Object.assign(files, appFiles(app));
  const edited = random.pick(apps);
  return {
    files,
    branches: branches(edited, apps),
    facts: {
      kustomizations: options.kustomizations,
      releases: options.releases,
      teams: teamCount,
      fanOut: apps.filter((a) => COMPONENTS['network-policy'](a.index)).length,
      oneFile: `${appFolder(edited)}/deployment.yaml`,
      chartBump: apps.flatMap((a) => a.releases)[0]?.name ?? '',
    },
  };
}

/** `app`'s image for one-file, a component for fan-out, the first release's chart. */
function branches(app: App, apps: readonly App[]): FleetBranch[] {
  const oneFile = `${appFolder(app)}/deployment.yaml`;
  const [major, minor] = app.tag.split('.');
  const bumped = apps.find((a) => a.releases.length > 0);
  if (!bumped) throw new Error('no app holds a HelmRelease');
  const releases = bumped.releases.map((r, i) =>
    i === 0 ? { ...r, version: CHART_VERSIONS[1] } : r,
  );
  return [
    {
      name: 'pr/one-file',
      scenario: 'one-file',
      message: `${app.name}: image ${major}.${Number(minor) + 1}.0`,
      files: { [oneFile]: appFiles(app, `${major}.${Number(minor) + 1}.0`)[oneFile] ?? '' },
    },
    {
      name: 'pr/fan-out',
      scenario: 'fan-out',
      message: 'network-policy: allow the metrics port',
      files: componentFiles(true),
    },
    {
      name: 'pr/chart-bump',
      scenario: 'chart-bump',
      message: `${releases[0]?.name ?? ''}: chart ${CHART_VERSIONS[1]}`,
      files: Object.fromEntries(
        Object.entries(appFiles(bumped, bumped.tag, releases)).filter(([path]) =>
          path.endsWith('helmreleases.yaml'),
        ),
      ),
    },
  ];
}

/** The cluster folder: bootstrap, variables, the chart repository and every Kustomization. */
function clusterFiles(
  options: FleetOptions,
  teams: readonly string[],
  apps: readonly App[],
): Record<string, string> {
  const files: Record<string, string> = {
    [`${FLEET_ENTRY}/flux-system/gotk-sync.yaml`]: yamlFile(
      {
        apiVersion: 'source.toolkit.fluxcd.io/v1',
        kind: 'GitRepository',
        metadata: { name: 'flux-system', namespace: 'flux-system' },
        spec: { interval: '1m', url: 'ssh://git@example.com/bench/fleet', ref: { branch: 'main' } },
      },
      {
        apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
        kind: 'Kustomization',
        metadata: { name: 'flux-system', namespace: 'flux-system' },
        spec: {
          interval: '10m',
          path: `./${FLEET_ENTRY}`,
          prune: true,
          sourceRef: { kind: 'GitRepository', name: 'flux-system' },
        },
      },
    ),
    [`${FLEET_ENTRY}/cluster-vars.yaml`]: yamlFile({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cluster-vars', namespace: 'flux-system' },
      data: CLUSTER_VARS,
    }),
    [`${FLEET_ENTRY}/sources/${CHART_REPOSITORY}.yaml`]: yamlFile({
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      kind: 'HelmRepository',
      metadata: { name: CHART_REPOSITORY, namespace: 'flux-system' },
      spec: { interval: '1h', url: options.chartRepositoryUrl },
    }),
    [`${FLEET_ENTRY}/namespaces.yaml`]: yamlFile({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'namespaces', namespace: 'flux-system' },
      spec: {
        interval: '1h',
        path: './infrastructure/namespaces',
        prune: false,
        sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      },
    }),
  };
  for (const team of teams) {
    const own = apps.filter((a) => a.team === team);
    if (own.length > 0)
      files[`${FLEET_ENTRY}/apps/${team}.yaml`] = yamlFile(...own.map(appKustomization));
  }
  return files;
}

/** The shared components; `metricsPort` is the fan-out branch's edit. */
function componentFiles(metricsPort: boolean): Record<string, string> {
  const component = (resources: string[], extra: Record<string, unknown> = {}) =>
    yamlFile({
      apiVersion: 'kustomize.config.k8s.io/v1alpha1',
      kind: 'Component',
      resources,
      ...extra,
    });
  const ports = [{ port: 'http' }, ...(metricsPort ? [{ port: 9090, protocol: 'TCP' }] : [])];
  return {
    'components/common/kustomization.yaml': component([], {
      patches: [
        {
          target: { kind: 'Deployment' },
          patch: yamlFile({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'any' },
            spec: {
              template: {
                spec: {
                  securityContext: {
                    runAsNonRoot: true,
                    seccompProfile: { type: 'RuntimeDefault' },
                  },
                  terminationGracePeriodSeconds: 30,
                },
              },
            },
          }),
        },
      ],
    }),
    'components/network-policy/kustomization.yaml': component(['network-policy.yaml']),
    'components/network-policy/network-policy.yaml': yamlFile({
      apiVersion: 'networking.k8s.io/v1',
      kind: 'NetworkPolicy',
      metadata: { name: '${APP_NAME}-ingress' },
      spec: {
        podSelector: { matchLabels: { 'app.kubernetes.io/name': '${APP_NAME}' } },
        policyTypes: ['Ingress'],
        ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: '${TEAM}' } } }], ports }],
      },
    }),
    'components/monitoring/kustomization.yaml': component(['monitoring.yaml']),
    'components/monitoring/monitoring.yaml': yamlFile(
      {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: '${APP_NAME}' },
        spec: {
          maxUnavailable: 1,
          selector: { matchLabels: { 'app.kubernetes.io/name': '${APP_NAME}' } },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: '${APP_NAME}-dashboard',
          labels: { 'grafana.example.com/dashboard': 'true' },
        },
        data: {
          'dashboard.json': JSON.stringify({ title: '${APP_NAME} (${CLUSTER_NAME})', panels: 12 }),
        },
      },
    ),
  };
}
