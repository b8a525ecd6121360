/**
 * The spec fields that decide who a Kustomization applies as and where (impersonation,
 * decryption, targetNamespace, kubeConfig), and the flags Flux's controllers run with.
 * Shaped as flux2-multi-tenancy's tenants, home-ops' cluster-apps Kustomization and
 * Flux's own gotk-components with the multi-tenancy lockdown patch.
 */
import { describe, expect, it } from 'vitest';
import type { Manifest, Producer, ProducerRef } from '../../../src/model/render.js';
import {
  DEFAULT_PRODUCERS,
  ROOT,
  findingsOf,
  fired,
  obj,
  place,
  producer,
  type Scenario,
} from './scenario.js';

const TENANT: ProducerRef = { kind: 'Kustomization', namespace: 'apps', name: 'dev-team' };
const CLUSTER_APPS: ProducerRef = {
  kind: 'Kustomization',
  namespace: 'flux-system',
  name: 'cluster-apps',
};
const PRODUCERS: Producer[] = [
  ...DEFAULT_PRODUCERS,
  producer(TENANT, { definedIn: { parent: ROOT } }),
  producer(CLUSTER_APPS, { path: './kubernetes/apps', definedIn: { parent: ROOT } }),
];

const byRoot = (manifest: Manifest) => place(manifest, { producer: ROOT });

/** The tenant's sync Kustomization, as flux2-multi-tenancy's tenants/base writes it. */
const tenant = (spec: Record<string, unknown> = { serviceAccountName: 'dev-team' }) =>
  byRoot(
    obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'dev-team', 'apps', {
      spec: {
        interval: '5m',
        path: './',
        prune: true,
        sourceRef: { kind: 'GitRepository', name: 'dev-team' },
        ...spec,
      },
    }),
  );

const DECRYPTION = { provider: 'sops', secretRef: { name: 'sops-age' } };
const clusterApps = (spec: Record<string, unknown> = {}) =>
  byRoot(
    obj('kustomize.toolkit.fluxcd.io/v1', 'Kustomization', 'cluster-apps', 'flux-system', {
      spec: {
        interval: '30m',
        path: './kubernetes/apps',
        prune: true,
        sourceRef: { kind: 'GitRepository', name: 'flux-system' },
        postBuild: { substituteFrom: [{ kind: 'ConfigMap', name: 'cluster-settings' }] },
        ...spec,
      },
    }),
  );
const encryptedSecret = place(
  obj('v1', 'Secret', 'cloudflare', 'network', {
    stringData: { token: 'ENC[AES256_GCM,data:aaaa,type:str]' },
    sops: { age: [{ recipient: 'age1example' }], mac: 'ENC[AES256_GCM,data:bbbb,type:str]' },
  }),
  { producer: CLUSTER_APPS },
);
const plainConfig = place(obj('v1', 'ConfigMap', 'settings', 'network', { data: { a: '1' } }), {
  producer: CLUSTER_APPS,
});

/** flux-system's cluster-reconciler binding: the controllers' own accounts are cluster-admin. */
const RECONCILER = byRoot(
  obj(
    'rbac.authorization.k8s.io/v1',
    'ClusterRoleBinding',
    'cluster-reconciler-flux-system',
    undefined,
    {
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'cluster-admin',
      },
      subjects: [
        { kind: 'ServiceAccount', name: 'kustomize-controller', namespace: 'flux-system' },
        { kind: 'ServiceAccount', name: 'helm-controller', namespace: 'flux-system' },
        { kind: 'ServiceAccount', name: 'platform-admin', namespace: 'apps' },
      ],
    },
  ),
);

const BASE_ARGS = [
  '--events-addr=http://notification-controller.flux-system.svc.cluster.local./',
  '--watch-all-namespaces=true',
  '--log-level=info',
  '--log-encoding=json',
  '--enable-leader-election',
];
const LOCKDOWN = [
  '--no-cross-namespace-refs=true',
  '--no-remote-bases=true',
  '--default-service-account=default',
];

/** A controller Deployment as gotk-components.yaml ships it, with `args`. */
const controller = (name: string, args: string[]) =>
  byRoot(
    obj(
      'apps/v1',
      'Deployment',
      name,
      'flux-system',
      {
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              containers: [{ name: 'manager', image: `ghcr.io/fluxcd/${name}:v1.4.0`, args }],
              serviceAccountName: name,
            },
          },
        },
      },
      {
        labels: {
          'app.kubernetes.io/component': name,
          'app.kubernetes.io/instance': 'flux-system',
          'app.kubernetes.io/part-of': 'flux',
        },
      },
    ),
  );

const scenario = (base: Scenario['base'], head: Scenario['head']): Scenario => ({
  base: [RECONCILER, ...base],
  head: [RECONCILER, ...head],
  baseProducers: PRODUCERS,
  headProducers: PRODUCERS,
});

describe('Kustomization specs and controller flags', () => {
  it.each<[string, Scenario, string[]]>([
    [
      "flags a tenant that drops serviceAccountName and gets the controller's cluster-admin",
      scenario([tenant()], [tenant({})]),
      ['flux-impersonation-escalated'],
    ],
    [
      'flags serviceAccountName added that names an account bound to cluster-admin',
      scenario([tenant({})], [tenant({ serviceAccountName: 'platform-admin' })]),
      ['flux-impersonation-escalated'],
    ],
    [
      "flags serviceAccountName set to the controller's own account",
      scenario([clusterApps()], [clusterApps({ serviceAccountName: 'kustomize-controller' })]),
      ['flux-impersonation-escalated'],
    ],
    [
      "flags the controller's own account named under the multi-tenancy lockdown",
      scenario(
        [clusterApps(), controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
        [
          clusterApps({ serviceAccountName: 'kustomize-controller' }),
          controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN]),
        ],
      ),
      ['flux-impersonation-escalated'],
    ],
    [
      "marks the controller's own account named for a look when it applied as it already",
      scenario(
        [clusterApps(), controller('kustomize-controller', BASE_ARGS)],
        [
          clusterApps({ serviceAccountName: 'kustomize-controller' }),
          controller('kustomize-controller', BASE_ARGS),
        ],
      ),
      ['flux-impersonation-changed'],
    ],
    [
      'marks a tenant moved to another account for a look',
      scenario([tenant()], [tenant({ serviceAccountName: 'dev-team-deployer' })]),
      ['flux-impersonation-changed'],
    ],
    [
      'marks serviceAccountName added for a look',
      scenario([tenant({})], [tenant()]),
      ['flux-impersonation-changed'],
    ],
    [
      'marks a dropped serviceAccountName for a look when the controller has a default account',
      scenario(
        [tenant(), controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
        [tenant({}), controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
      ),
      ['flux-impersonation-changed'],
    ],
    [
      'flags decryption removed from a Kustomization that applies SOPS files',
      scenario(
        [clusterApps({ decryption: DECRYPTION }), encryptedSecret],
        [clusterApps(), encryptedSecret],
      ),
      ['flux-decryption-removed'],
    ],
    [
      'stays quiet when decryption goes from a Kustomization that applies no SOPS file',
      scenario(
        [clusterApps({ decryption: DECRYPTION }), plainConfig],
        [clusterApps(), plainConfig],
      ),
      [],
    ],
    [
      'flags decryption removed from a Kustomization that did not render, so what it applies is unknown',
      {
        ...scenario([clusterApps({ decryption: DECRYPTION })], [clusterApps()]),
        baseProducers: [...DEFAULT_PRODUCERS, producer(TENANT)],
        headProducers: [
          ...DEFAULT_PRODUCERS,
          producer(CLUSTER_APPS, { definedIn: { parent: ROOT }, error: 'kustomize build failed' }),
        ],
      },
      ['flux-decryption-removed'],
    ],
    [
      'stays quiet when decryption changes its key',
      scenario(
        [clusterApps({ decryption: DECRYPTION }), encryptedSecret],
        [
          clusterApps({ decryption: { provider: 'sops', secretRef: { name: 'sops-gpg' } } }),
          encryptedSecret,
        ],
      ),
      [],
    ],
    [
      'flags a changed targetNamespace',
      scenario([tenant({ targetNamespace: 'dev' })], [tenant({ targetNamespace: 'dev-team' })]),
      ['flux-target-changed'],
    ],
    [
      'flags a kubeConfig added',
      scenario(
        [tenant({})],
        [tenant({ kubeConfig: { secretRef: { name: 'staging-kubeconfig', key: 'value' } } })],
      ),
      ['flux-target-changed'],
    ],
    [
      'flags the multi-tenancy lockdown removed from kustomize-controller',
      scenario(
        [controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
        [controller('kustomize-controller', BASE_ARGS)],
      ),
      [
        'flux-controller-lockdown-removed',
        'flux-controller-lockdown-removed',
        'flux-controller-lockdown-removed',
      ],
    ],
    [
      'flags --no-cross-namespace-refs turned false',
      scenario(
        [controller('helm-controller', [...BASE_ARGS, '--no-cross-namespace-refs=true'])],
        [controller('helm-controller', [...BASE_ARGS, '--no-cross-namespace-refs=false'])],
      ),
      ['flux-controller-lockdown-removed'],
    ],
    [
      'flags a kubeConfig exec allowed',
      scenario(
        [controller('kustomize-controller', BASE_ARGS)],
        [controller('kustomize-controller', [...BASE_ARGS, '--insecure-kubeconfig-exec=true'])],
      ),
      ['flux-controller-lockdown-removed'],
    ],
    [
      'marks other controller flags changed for a look',
      scenario(
        [controller('source-controller', [...BASE_ARGS, '--storage-path=/data'])],
        [
          controller('source-controller', [
            ...BASE_ARGS,
            '--storage-path=/data',
            '--concurrent=8',
            '--requeue-dependency=5s',
          ]),
        ],
      ),
      ['flux-controller-args-changed'],
    ],
    [
      'marks the lockdown added for a look, since it can stop tenants applying',
      scenario(
        [controller('kustomize-controller', BASE_ARGS)],
        [controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
      ),
      ['flux-controller-args-changed'],
    ],
    [
      'stays quiet for a controller image bump',
      scenario(
        [controller('helm-controller', BASE_ARGS)],
        [
          byRoot({
            ...controller('helm-controller', BASE_ARGS).manifest,
            spec: {
              replicas: 2,
              selector: { matchLabels: { app: 'helm-controller' } },
              template: {
                metadata: { labels: { app: 'helm-controller' } },
                spec: {
                  containers: [
                    {
                      name: 'manager',
                      image: 'ghcr.io/fluxcd/helm-controller:v1.5.0',
                      args: BASE_ARGS,
                    },
                  ],
                },
              },
            },
          }),
        ],
      ),
      [],
    ],
    [
      'stays quiet for a flag on a Deployment that is not a Flux controller',
      scenario(
        [
          byRoot(
            obj('apps/v1', 'Deployment', 'podinfo', 'web', {
              spec: {
                template: {
                  spec: {
                    containers: [
                      {
                        name: 'podinfo',
                        image: 'podinfo:6.7.0',
                        args: ['--no-cross-namespace-refs=true'],
                      },
                    ],
                  },
                },
              },
            }),
          ),
        ],
        [
          byRoot(
            obj('apps/v1', 'Deployment', 'podinfo', 'web', {
              spec: {
                template: {
                  spec: { containers: [{ name: 'podinfo', image: 'podinfo:6.7.0', args: [] }] },
                },
              },
            }),
          ),
        ],
      ),
      [],
    ],
  ])('%s', (_name, s, expected) => {
    expect(fired(s, 'flux')).toEqual(expected);
  });

  it('says who the tenant applies as once serviceAccountName is gone', () => {
    const [finding] = findingsOf(
      scenario([tenant()], [tenant({})]),
      'flux-impersonation-escalated',
    );
    expect(finding).toMatchObject({
      level: 'danger',
      resource: { kind: 'Kustomization', namespace: 'apps', name: 'dev-team' },
      producer: ROOT,
    });
    expect(finding?.message).toBe(
      'Kustomization apps/dev-team stops applying as service account apps/dev-team: kustomize-controller applies it as its own service account, cluster-admin in a default Flux install, so everything under it may create and delete anything in the cluster.',
    );
  });

  it('names the binding that makes an account cluster-admin', () => {
    const [finding] = findingsOf(
      scenario([tenant({})], [tenant({ serviceAccountName: 'platform-admin' })]),
      'flux-impersonation-escalated',
    );
    expect(finding?.message).toContain(
      'applies as service account apps/platform-admin instead of the account kustomize-controller applies with when none is named (its own, unless it runs with --default-service-account): ClusterRoleBinding cluster-reconciler-flux-system binds it to cluster-admin',
    );
  });

  it('names each lockdown flag lifted and what it opens', () => {
    const messages = findingsOf(
      scenario(
        [controller('kustomize-controller', [...BASE_ARGS, ...LOCKDOWN])],
        [controller('kustomize-controller', BASE_ARGS)],
      ),
      'flux-controller-lockdown-removed',
    ).map((f) => f.message);
    expect(messages).toEqual([
      expect.stringContaining(
        'kustomize-controller runs without --default-service-account=default',
      ),
      expect.stringContaining('kustomize-controller runs without --no-cross-namespace-refs'),
      expect.stringContaining('kustomize-controller runs without --no-remote-bases'),
    ]);
  });

  it('lists the controller flags that change', () => {
    const [finding] = findingsOf(
      scenario(
        [controller('source-controller', [...BASE_ARGS, '--concurrent=4'])],
        [
          controller('source-controller', [
            ...BASE_ARGS.filter((a) => !a.startsWith('--log-level')),
            '--concurrent=8',
            '--requeue-dependency=5s',
          ]),
        ],
      ),
      'flux-controller-args-changed',
    );
    expect(finding?.message).toBe(
      'Deployment flux-system/source-controller: source-controller runs with other flags, --concurrent=8 (was --concurrent=4), --log-level=info removed, --requeue-dependency=5s added: they change how Flux reconciles everything it manages in the cluster.',
    );
  });

  it('counts the SOPS-encrypted objects that stop being decrypted', () => {
    const [finding] = findingsOf(
      scenario(
        [clusterApps({ decryption: DECRYPTION }), encryptedSecret],
        [clusterApps(), encryptedSecret],
      ),
      'flux-decryption-removed',
    );
    expect(finding?.level).toBe('danger');
    expect(finding?.message).toBe(
      'Kustomization flux-system/cluster-apps drops spec.decryption: the SOPS-encrypted object it applies is no longer decrypted, so Flux fails to apply it or applies it still encrypted.',
    );
  });
});
