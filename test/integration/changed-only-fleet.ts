/**
 * A small Flux repository with every way one producer can depend on another, and a set of
 * named edits to it: a shared component, a patch, a cluster-wide substitution source, a
 * parent whose output defines its children (and substitutes into them), a Kustomization
 * whose output another one substitutes from, a HelmRelease on a chart in the repository
 * whose values come from another Kustomization's ConfigMap, and apps that come and go.
 */
import { bootstrap, repositoryChartRelease, yamlStream, type RepoFiles } from '../support/repo.js';

/** The edits a test can make; each takes a short value, and a missing key is the base. */
export const EDITS = [
  'a',
  'b',
  'c',
  'd',
  'shared',
  'patch',
  'greeting',
  'tier',
  'appVar',
  'webValues',
  'webTemplate',
  'webReplicas',
  'removeE',
  'addF',
] as const;

export type Edit = Partial<Record<(typeof EDITS)[number], string>>;

export const ENTRY = 'clusters/prod';

const configMap = (name: string, namespace: string, data: Record<string, string>) =>
  yamlStream({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data });

function kustomization(name: string, path: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      ...spec,
    },
  };
}

const webChart = (label: string): RepoFiles => ({
  'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
  'charts/web/values.yaml': 'replicas: 1\ncolour: blue\n',
  'charts/web/templates/cm.yaml': `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}
  labels: { tier: ${label} }
data:
  replicas: "{{ .Values.replicas }}"
  colour: "{{ .Values.colour }}"
`,
});

/**
 * flux-system applies clusters/prod: the vars ConfigMap, the `apps` parent and the `web`
 * HelmRelease. `apps` applies the app Kustomizations (with ${TIER} substituted into them
 * from vars); each app's ConfigMap reads ${GREETING} and ${TIER}. App a's output holds the
 * `a-app-vars` ConfigMap that app b substitutes from, app d's the release's values.
 */
export function fleet(edit: Edit = {}): RepoFiles {
  const v = (key: keyof Edit) => edit[key] ?? `${key}-1`;
  const vars = { substituteFrom: [{ kind: 'ConfigMap', name: 'vars' }] };
  const apps = ['a', 'b', 'c', 'd', ...(edit.removeE ? [] : ['e']), ...(edit.addF ? ['f'] : [])];
  const files: RepoFiles = {
    [`${ENTRY}/flux-system.yaml`]: bootstrap(`./${ENTRY}`),
    [`${ENTRY}/vars.yaml`]: configMap('vars', 'flux-system', {
      GREETING: v('greeting'),
      TIER: v('tier'),
    }),
    [`${ENTRY}/apps.yaml`]: yamlStream(
      kustomization('apps', './app-defs', { postBuild: { ...vars } }),
    ),
    [`${ENTRY}/web.yaml`]: yamlStream(
      repositoryChartRelease('web', 'apps', './charts/web', {
        values: { replicas: Number(edit.webReplicas === undefined ? 1 : 2) },
        valuesFrom: [{ kind: 'ConfigMap', name: 'd-web-values' }],
      }),
    ),
    ...webChart(v('webTemplate')),
    'components/shared/kustomization.yaml':
      'apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources: [shared.yaml]\n',
    'components/shared/shared.yaml': configMap('shared', 'apps', { value: v('shared') }),
    'app-defs/kustomization.yaml': `resources:\n${apps.map((a) => `  - ${a}.yaml`).join('\n')}\n`,
  };
  for (const app of apps) {
    const component = ['a', 'b', 'c'].includes(app)
      ? { components: ['../../components/shared'] }
      : {};
    const from =
      app === 'b'
        ? [...vars.substituteFrom, { kind: 'ConfigMap', name: 'a-app-vars' }]
        : vars.substituteFrom;
    files[`app-defs/${app}.yaml`] = yamlStream(
      kustomization(app, `./apps/${app}`, {
        namePrefix: `${app}-`,
        // Substituted by the parent: the child's definition changes with vars' TIER.
        postBuild: { substitute: { TIER: '${TIER}' }, substituteFrom: from },
        ...component,
      }),
    );
    files[`apps/${app}/cm.yaml`] = configMap(app, 'apps', {
      value: v(app as keyof Edit),
      greeting: '${GREETING}',
      tier: '${TIER}',
      ...(app === 'b' ? { fromA: '${APP_VAR}' } : {}),
    });
  }
  files['apps/a/vars.yaml'] = configMap('app-vars', 'flux-system', { APP_VAR: v('appVar') });
  files['apps/d/values.yaml'] = configMap('web-values', 'apps', {
    'values.yaml': `colour: ${v('webValues')}\n`,
  });
  files['apps/d/kustomization.yaml'] =
    'resources: [cm.yaml, values.yaml]\npatches:\n  - path: patch.yaml\n';
  files['apps/d/patch.yaml'] = configMap('d', 'apps', { patched: v('patch') });
  return files;
}
