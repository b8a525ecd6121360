/**
 * fluxlens's own deployment (deploy/), rendered and reviewed by fluxlens as any Flux
 * repository would be, with real kustomize and git: every kustomization renders, every pod
 * is locked down and configured with settings fluxlens accepts, and a pull request that
 * weakens the deployment is reported rule by rule.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments, parseDocument, stringify, type Document } from 'yaml';
import { z } from 'zod';
import { ENV_VARIABLES, SECRET_FILE_VARIABLES, loadServiceConfig } from '../../src/config.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { runCli } from '../support/cli.js';
import {
  type Rendered,
  containerEnv,
  copyDeploy,
  kustomizeFolders,
  lockdownGaps,
  manifests,
  named,
  render,
  secretKeyUses,
  unmountedSecretFiles,
  workloads,
} from '../support/deploy.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  type TestRepo,
  yamlStream,
} from '../support/repo.js';
import { scratchDirs } from '../support/scratch-dirs.js';

/** The URL of deploy/flux/source.yaml: a scratch repository with it as its URL is that source. */
const REPO_URL = 'https://github.com/fluxlens/fluxlens';

const { tempDir, removeAfterAll } = scratchDirs();

/** The registries file that the Secret of secret.example.yaml holds, written to a file. */
function exampleRegistriesFile(): string {
  const example = 'deploy/kubernetes/components/private-registries/secret.example.yaml';
  const { stringData } = z
    .object({ stringData: z.object({ '.dockerconfigjson': z.string() }) })
    .parse(parse(readFileSync(join(import.meta.dirname, '../..', example), 'utf8')));
  const file = join(tempDir('fluxlens-deploy-registries-'), 'config.json');
  writeFileSync(file, stringData['.dockerconfigjson']);
  return file;
}

describe('fluxlens render on deploy/', () => {
  const folders = kustomizeFolders();
  const renders = new Map<string, Rendered>();
  let fluxRender: Rendered;

  /**
   * A copy of deploy/ stands in for the checkout (rendering the checkout itself would copy
   * node_modules into each render's workspace), with one entry folder per kustomize folder:
   * a Flux Kustomization that applies it.
   */
  beforeAll(async () => {
    const tree = makeRepo({});
    removeAfterAll(tree.dir);
    copyDeploy(tree.dir);
    for (const folder of folders) {
      const entry = `clusters/${folder.replaceAll('/', '-')}`;
      tree.write({
        [`${entry}/flux-system.yaml`]: bootstrap(`./${entry}`),
        [`${entry}/deploy.yaml`]: yamlStream(fluxKustomization('deploy', `./${folder}`)),
      });
      renders.set(folder, await render(tree.dir, '--path', entry));
    }
    const source = `fluxlens=${tree.dir}`;
    fluxRender = await render(tree.dir, '--path', 'deploy/flux', '--source', source);
  });

  it('finds the base and the external-Redis overlay among the kustomizations', () => {
    expect(folders).toEqual(
      expect.arrayContaining([
        'deploy/kubernetes/base',
        'deploy/kubernetes/overlays/external-redis',
      ]),
    );
  });

  it.each(folders)('renders %s without render errors', (folder) => {
    const rendered = renders.get(folder);
    expect(rendered?.errors).toEqual([]);
    expect(rendered?.objects.filter((o) => o.producer.name === 'deploy').length).toBeGreaterThan(0);
  });

  it('renders deploy/flux with its GitRepository mapped to the local tree, host and tag substituted', () => {
    expect(fluxRender.errors).toEqual([]);
    // Nothing in deploy/flux applies it: it is applied as `flux bootstrap` would apply it.
    expect(fluxRender.producers).toEqual([
      expect.objectContaining({
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'flux-system',
      }),
      expect.objectContaining({
        kind: 'Kustomization',
        namespace: 'flux-system',
        name: 'fluxlens',
      }),
    ]);
    // Its GitRepository and Kustomization are objects of the cluster, as in a fleet repository.
    expect(named(fluxRender, 'Kustomization', 'fluxlens')).toBeDefined();
    expect(named(fluxRender, 'HTTPRoute', 'fluxlens')).toMatchObject({
      spec: { hostnames: ['fluxlens.example.com'] },
    });
    expect(JSON.stringify(named(fluxRender, 'Deployment', 'fluxlens-worker'))).toContain(
      'ghcr.io/fluxlens/fluxlens:0.1.0',
    );
    expect(JSON.stringify(fluxRender.objects)).not.toContain('${');
  });

  it('runs every pod under the restricted Pod Security Standard, read-only and without a token', () => {
    const all = [...renders.values(), fluxRender].flatMap((r) => workloads(manifests(r)));
    expect(new Set(all.map((w) => w.label))).toEqual(
      new Set([
        'Deployment/fluxlens-server',
        'Deployment/fluxlens-worker',
        'StatefulSet/fluxlens-redis',
      ]),
    );
    expect(all.flatMap((w) => lockdownGaps(w.pod).map((gap) => `${w.label}: ${gap}`))).toEqual([]);
    expect(named(fluxRender, 'Namespace', 'fluxlens')).toMatchObject({
      metadata: {
        labels: {
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/audit': 'restricted',
          'pod-security.kubernetes.io/warn': 'restricted',
        },
      },
    });
  });

  it('gives server and worker only settings fluxlens reads, which pass its startup checks', () => {
    // REDIS_PASSWORD only fills in FLUXLENS_REDIS_URL's `$(REDIS_PASSWORD)`.
    const known = new Set([...ENV_VARIABLES, ...SECRET_FILE_VARIABLES, 'HOME', 'REDIS_PASSWORD']);
    const secret = (key: string) => (key.endsWith('app-id') ? '123456' : 'x'.repeat(32));
    const readFile = (path: string) =>
      path.endsWith('/url') ? 'rediss://redis.example.com:6380' : 'x'.repeat(32);
    const services = [...renders.values(), fluxRender]
      .flatMap((r) => workloads(manifests(r)))
      .filter((w) => w.component === 'server' || w.component === 'worker');
    expect(services.length).toBeGreaterThanOrEqual(4);
    for (const { pod, component } of services) {
      const [container] = pod.containers;
      if (!container) throw new Error('a pod without containers');
      const env = containerEnv(container, secret);
      expect(Object.keys(env).filter((name) => !known.has(name))).toEqual([]);
      // The registries file as the Secret's example gives it, where the volume puts it.
      if (env['FLUXLENS_REGISTRY_CONFIG'] !== undefined) {
        expect(env['FLUXLENS_REGISTRY_CONFIG']).toBe('/etc/fluxlens/registries/config.json');
        env['FLUXLENS_REGISTRY_CONFIG'] = exampleRegistriesFile();
      }
      expect(unmountedSecretFiles(pod, container)).toEqual([]);
      const config = loadServiceConfig(component === 'server' ? 'server' : 'worker', env, {
        readFile,
      });
      expect(config.redisUrl).toMatch(/^rediss?:\/\//);
      // The in-cluster Redis's URL carries the password from the Secret, put in by Kubernetes.
      if (env['FLUXLENS_REDIS_URL'] !== undefined) {
        expect(config.redisUrl).toBe(`redis://:${secret('redis-password')}@fluxlens-redis:6379`);
      }
      expect(config.github.auth?.kind).toBe('app');
    }
  });

  it('gives only the worker the chart registries file in the private-registries overlay', () => {
    const rendered = renders.get('deploy/kubernetes/overlays/private-registries');
    if (!rendered) throw new Error('the private-registries overlay was not rendered');
    const pods = workloads(manifests(rendered));
    const withFile = pods.filter(({ pod }) =>
      pod.volumes?.some((v) => v.secret?.secretName === 'fluxlens-registries'),
    );
    expect(withFile.map((w) => w.label)).toEqual(['Deployment/fluxlens-worker']);
  });

  it('replaces the HTTPRoute with an Ingress for the host with the ingress Component', async () => {
    const dir = tempDir('fluxlens-deploy-ingress-');
    copyDeploy(dir);
    editYaml(join(dir, 'deploy/flux/fluxlens.yaml'), (d) =>
      d.setIn(['spec', 'components'], ['../components/ingress']),
    );
    const rendered = await render(dir, '--path', 'deploy/flux', '--source', `fluxlens=${dir}`);
    expect(rendered.errors).toEqual([]);
    expect(manifests(rendered).filter((m) => m.kind === 'HTTPRoute')).toEqual([]);
    expect(named(rendered, 'Ingress', 'fluxlens')).toMatchObject({
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['fluxlens.example.com'], secretName: 'fluxlens-tls' }],
        rules: [
          {
            host: 'fluxlens.example.com',
            http: {
              paths: [
                { path: '/webhooks/github', pathType: 'Exact' },
                { path: '/reports', pathType: 'Prefix' },
              ],
            },
          },
        ],
      },
    });
    expect(JSON.stringify(rendered.objects)).not.toContain('${');
  });

  it("runs an image of one's own registry with the spec.images of docs/deploy.md", async () => {
    const guide = readFileSync(join(import.meta.dirname, '../../docs/deploy.md'), 'utf8');
    const block = /```yaml\n((?:[ \t]*)spec:\n[ \t]+images:\n[\s\S]*?)[ \t]*```/.exec(guide)?.[1];
    if (!block) throw new Error('docs/deploy.md has no spec.images example');
    const documented = z
      .object({
        spec: z.object({
          images: z.array(z.looseObject({ newName: z.string(), newTag: z.string() })),
        }),
      })
      .parse(parse(block.replace(/^ {2}/gm, '')));
    const dir = tempDir('fluxlens-deploy-image-');
    copyDeploy(dir);
    editYaml(join(dir, 'deploy/flux/fluxlens.yaml'), (d) =>
      d.setIn(['spec', 'images'], documented.spec.images),
    );
    const rendered = await render(dir, '--path', 'deploy/flux', '--source', `fluxlens=${dir}`);
    expect(rendered.errors).toEqual([]);
    const [image] = documented.spec.images;
    for (const name of ['fluxlens-server', 'fluxlens-worker']) {
      expect(named(rendered, 'Deployment', name)).toMatchObject({
        spec: {
          template: { spec: { containers: [{ image: `${image?.newName}:${image?.newTag}` }] } },
        },
      });
    }
  });

  it('points server and worker at another Secret with the existing-Secret patches', async () => {
    const dir = tempDir('fluxlens-deploy-secret-');
    copyDeploy(dir);
    const file = join(dir, 'deploy/flux/fluxlens.yaml');
    const example = z
      .object({ patches: z.array(z.unknown()) })
      .parse(
        parse(readFileSync(join(dir, 'deploy/flux/secrets/existing-secret-patches.yaml'), 'utf8')),
      );
    const doc = parseDocument(readFileSync(file, 'utf8'));
    doc.setIn(['spec', 'patches'], example.patches);
    writeFileSync(file, doc.toString());
    const rendered = await render(dir, '--path', 'deploy/flux', '--source', `fluxlens=${dir}`);
    expect(rendered.errors).toEqual([]);
    const services = workloads(manifests(rendered)).filter((w) => w.component !== 'redis');
    expect(services.map((w) => w.label).sort()).toEqual([
      'Deployment/fluxlens-server',
      'Deployment/fluxlens-worker',
    ]);
    // Every Secret key any pod reads, Redis's password included, comes from `github-app`.
    const all = workloads(manifests(rendered));
    expect(new Set(all.flatMap((w) => secretKeyUses(w.pod)).map((u) => u.secret))).toEqual(
      new Set(['github-app']),
    );
    for (const { pod } of services) {
      const appId = pod.containers[0]?.env?.find((v) => v.name === 'FLUXLENS_GITHUB_APP_ID');
      expect(appId?.valueFrom?.secretKeyRef).toEqual({ name: 'github-app', key: 'github-app-id' });
    }
  });
});

const AnalysisSchema = z.object({
  errors: z.array(z.unknown()),
  verdict: z.object({ level: z.string() }),
  findings: z.array(
    z.object({
      rule: z.string(),
      level: z.string(),
      resource: z.object({ kind: z.string(), namespace: z.string().optional(), name: z.string() }),
    }),
  ),
});

const git = (dir: string, ...args: string[]): string =>
  execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  }).trim();

function editYaml(file: string, edit: (doc: Document) => void): void {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  edit(doc);
  writeFileSync(file, doc.toString());
}

/** The policy a fleet repository that installs fluxlens keeps (deploy/README.md). */
const ACCEPT_ROUTE = stringify({
  ignore: [{ rule: 'public-entrance', resource: 'HTTPRoute/fluxlens/fluxlens' }],
});

describe('fluxlens diff on a pull request that adds or changes deploy/', () => {
  let repo: TestRepo;

  /**
   * main: a README. `add-deploy` adds deploy/; `accept-route` adds a policy that accepts the
   * public route, and `accept-route-add-deploy` adds deploy/ on top of it; `weaken` changes
   * `add-deploy`: no workers, a LoadBalancer server Service, no default-deny policy.
   */
  beforeAll(() => {
    repo = makeRepo({ 'README.md': 'fleet\n' }, { git: true });
    removeAfterAll(repo.dir);
    repo.commit('base');
    git(repo.dir, 'checkout', '-q', '-b', 'add-deploy');
    copyDeploy(repo.dir);
    repo.commit('add deploy/');
    git(repo.dir, 'checkout', '-q', '-b', 'accept-route', 'main');
    repo.write({ '.fluxlens.yaml': ACCEPT_ROUTE });
    repo.commit('accept the public route');
    git(repo.dir, 'checkout', '-q', '-b', 'accept-route-add-deploy');
    copyDeploy(repo.dir);
    repo.commit('add deploy/');
    git(repo.dir, 'checkout', '-q', '-b', 'weaken', 'add-deploy');
    const base = join(repo.dir, 'deploy/kubernetes/base');
    editYaml(join(base, 'worker-deployment.yaml'), (d) => d.setIn(['spec', 'replicas'], 0));
    editYaml(join(base, 'server-service.yaml'), (d) => d.setIn(['spec', 'type'], 'LoadBalancer'));
    const policies = join(base, 'network-policies.yaml');
    const kept = parseAllDocuments(readFileSync(policies, 'utf8')).filter(
      (d) => d.getIn(['metadata', 'name']) !== 'fluxlens-default-deny',
    );
    writeFileSync(policies, kept.map(String).join('---\n'));
    repo.commit('weaken the deployment');
    git(repo.dir, 'checkout', '-q', 'main');
  });

  async function diff(base: string, head: string) {
    const run = await runCli([
      'diff',
      ...['--repo', repo.dir, '--base', base, '--head', head, '--path', 'deploy/flux'],
      ...['--repo-url', REPO_URL, '--format', 'json', '--fail-on', 'never'],
    ]);
    expect(run.code).toBe(0);
    const json: unknown = JSON.parse(run.stdout);
    expectValidAnalysis(json);
    return AnalysisSchema.parse(json);
  }

  const aboveInfo = (result: z.infer<typeof AnalysisSchema>) =>
    result.findings
      .filter((f) => f.level !== 'info')
      .map((f) => ({ rule: f.rule, resource: f.resource }));

  it('reports nothing above info on adding deploy/, but the public route it exists for', async () => {
    const result = await diff('main', 'add-deploy');
    expect(result.errors).toEqual([]);
    expect(aboveInfo(result)).toEqual([
      {
        rule: 'public-entrance',
        resource: { kind: 'HTTPRoute', namespace: 'fluxlens', name: 'fluxlens' },
      },
    ]);
  });

  it('reports nothing above info on adding deploy/ under a policy that accepts the route', async () => {
    const result = await diff('accept-route', 'accept-route-add-deploy');
    expect(result.errors).toEqual([]);
    expect(result.findings.length).toBeGreaterThan(0);
    expect(aboveInfo(result)).toEqual([]);
    expect(result.verdict.level).toBe('info');
  });

  it('reports a pull request that stops the workers and opens the server to the outside', async () => {
    const result = await diff('add-deploy', 'weaken');
    expect(result.errors).toEqual([]);
    expect(aboveInfo(result)).toEqual(
      expect.arrayContaining([
        {
          rule: 'replicas-zero',
          resource: { kind: 'Deployment', namespace: 'fluxlens', name: 'fluxlens-worker' },
        },
        {
          rule: 'service-exposed',
          resource: { kind: 'Service', namespace: 'fluxlens', name: 'fluxlens-server' },
        },
        {
          rule: 'network-policy-removed',
          resource: { kind: 'NetworkPolicy', namespace: 'fluxlens', name: 'fluxlens-default-deny' },
        },
      ]),
    );
    expect(result.verdict.level).toBe('caution');
  });
});
