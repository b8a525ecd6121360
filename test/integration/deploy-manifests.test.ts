/**
 * deploy/ as a cluster would get it: every kustomization and Component under deploy/ builds
 * with kubectl's built-in kustomize and with the pinned one, to the same objects; the pods
 * read only keys the documented Secret holds, optional where the docs say optional; the
 * documented Secret command makes that Secret; the in-cluster Redis, started from its own
 * manifest with a real redis-server, refuses clients without the password and takes the URL
 * the pods build; the egress docs/security.md describes is the egress the policies allow.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parseDocument } from 'yaml';
import { z } from 'zod';
import { loadConfig, loadServiceConfig } from '../../src/config.js';
import {
  containerEnv,
  type KustomizeTarget,
  kustomizeTargets,
  lockdownGaps,
  quantityBytes,
  secretKeyUses,
  workloads,
} from '../support/deploy.js';
import { projectRoot } from '../support/paths.js';
import { scratchDirs } from '../support/scratch-dirs.js';
import { freePort } from '../support/service.js';
import { findTool } from '../support/tools.js';

const { tempDir } = scratchDirs();

const ObjectSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: z.looseObject({ name: z.string(), namespace: z.string().optional() }),
});
type K8sObject = z.infer<typeof ObjectSchema>;

const kubectl = findTool('kubectl');
/** The kustomize of the tools folder (scripts/install-tools), the version fluxlens pins. */
const pinnedKustomize = join(loadConfig().toolsBinDir, 'kustomize');

/**
 * The folder kustomize builds for a target: the folder itself for a kustomization; for a
 * Component, flux/app in a copy of deploy/ with the Component added to its `components`, as
 * Flux's `spec.components` adds it.
 */
function buildDir(target: KustomizeTarget): string {
  if (target.kind === 'Kustomization') return join(projectRoot, target.folder);
  const dir = tempDir('fluxlens-component-');
  cpSync(join(projectRoot, 'deploy'), join(dir, 'deploy'), { recursive: true });
  const app = join(dir, 'deploy/flux/app');
  const file = join(app, 'kustomization.yaml');
  const kustomization = parseDocument(readFileSync(file, 'utf8'));
  kustomization.set('components', [relative(app, join(dir, target.folder))]);
  writeFileSync(file, kustomization.toString());
  return app;
}

function objects(yamlText: string): K8sObject[] {
  return parseAllDocuments(yamlText)
    .map((d) => d.toJS() as unknown)
    .filter((o) => o !== null)
    .map((o) => ObjectSchema.parse(o));
}

const label = (o: K8sObject) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

const targets = kustomizeTargets();
const pinnedBuilds = new Map<string, K8sObject[]>();
const build = (folder: string): K8sObject[] => {
  const built = pinnedBuilds.get(folder);
  if (!built) throw new Error(`${folder} was not built`);
  return built;
};

beforeAll(() => {
  for (const target of targets) {
    const out = execFileSync(pinnedKustomize, ['build', buildDir(target)], { encoding: 'utf8' });
    pinnedBuilds.set(target.folder, objects(out));
  }
});

describe('every kustomization under deploy/', () => {
  it('finds kustomizations and Components in kubernetes/ and flux/', () => {
    expect(targets).toEqual(
      expect.arrayContaining([
        { folder: 'deploy/kubernetes/base', kind: 'Kustomization' },
        { folder: 'deploy/kubernetes/components/external-redis', kind: 'Component' },
        { folder: 'deploy/flux/app', kind: 'Kustomization' },
        { folder: 'deploy/flux/components/ingress', kind: 'Component' },
      ]),
    );
  });

  it('builds with the pinned kustomize 5.7', () => {
    expect(execFileSync(pinnedKustomize, ['version'], { encoding: 'utf8' })).toMatch(/^v5\.7\./);
  });

  describe.each(targets.map((t) => [t.folder, t] as const))('%s', (_folder, target) => {
    it('builds with the pinned kustomize, to objects', () => {
      expect(build(target.folder).length).toBeGreaterThan(0);
    });

    // kubectl's own kustomize is older (5.5 in kubectl 1.32) and is what `kubectl apply -k`
    // runs; a machine without kubectl cannot check it.
    it.skipIf(kubectl === undefined)(
      kubectl === undefined
        ? "builds with kubectl's kustomize (skipped: no kubectl on PATH)"
        : "builds with kubectl's kustomize to the same objects",
      () => {
        const out = execFileSync(kubectl ?? 'kubectl', ['kustomize', buildDir(target)], {
          encoding: 'utf8',
        });
        expect(objects(out).map(label)).toEqual(build(target.folder).map(label));
      },
    );
  });

  it('builds flux/app with every Component at once, with both kustomizes alike', () => {
    const dir = tempDir('fluxlens-all-components-');
    cpSync(join(projectRoot, 'deploy'), join(dir, 'deploy'), { recursive: true });
    const app = join(dir, 'deploy/flux/app');
    const file = join(app, 'kustomization.yaml');
    const kustomization = parseDocument(readFileSync(file, 'utf8'));
    const components = targets.filter((t) => t.kind === 'Component');
    kustomization.set(
      'components',
      components.map((t) => relative(app, join(dir, t.folder))),
    );
    writeFileSync(file, kustomization.toString());
    const built = objects(execFileSync(pinnedKustomize, ['build', app], { encoding: 'utf8' }));
    expect(built.filter((o) => o.kind === 'Ingress' || o.kind === 'HTTPRoute').map(label)).toEqual([
      'Ingress/fluxlens/fluxlens',
    ]);
    if (kubectl !== undefined) {
      const out = execFileSync(kubectl, ['kustomize', app], { encoding: 'utf8' });
      expect(objects(out).map(label)).toEqual(built.map(label));
    }
  });

  it('drops every object of the in-cluster Redis with the external-redis Component', () => {
    const labels = build('deploy/kubernetes/overlays/external-redis').map(label);
    expect(labels.filter((l) => l.includes('fluxlens-redis'))).toEqual([]);
    const kept = build('deploy/kubernetes/base').map(label);
    expect(kept.filter((l) => l.includes('fluxlens-redis')).length).toBe(6);
  });

  it('binds the HTTPRoute to one listener, and the ingress Component replaces it', () => {
    const route = build('deploy/flux/app').find((o) => o.kind === 'HTTPRoute');
    expect(route).toMatchObject({
      spec: { parentRefs: [{ sectionName: '${gateway_listener}' }] },
    });
    const ingress = build('deploy/flux/components/ingress');
    expect(ingress.filter((o) => o.kind === 'HTTPRoute')).toEqual([]);
    expect(ingress.filter((o) => o.kind === 'Ingress').map(label)).toEqual([
      'Ingress/fluxlens/fluxlens',
    ]);
  });

  it('runs every pod locked down, with node disk requested for its scratch space', () => {
    const gaps = targets.flatMap((t) =>
      workloads(build(t.folder)).flatMap((w) =>
        lockdownGaps(w.pod).map((gap) => `${t.folder} ${w.label}: ${gap}`),
      ),
    );
    expect(gaps).toEqual([]);
  });

  it("probes the worker's liveness and start on /healthz and its readiness on /readyz", () => {
    const worker = workloads(build('deploy/kubernetes/base')).find(
      (w) => w.label === 'Deployment/fluxlens-worker',
    );
    const [container] = worker?.pod.containers ?? [];
    expect(container?.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container?.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'metrics' });
    expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'metrics' });
    const port = container?.env?.find((v) => v.name === 'FLUXLENS_METRICS_PORT')?.value;
    expect(port).toBe('9090');
  });
});

/** A Markdown table's rows (cells trimmed, backticks dropped) under the header starting `first`. */
function markdownTable(text: string, first: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`| ${first} `));
  if (start < 0) throw new Error(`no table headed "${first}"`);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim().replaceAll('`', '')),
    );
  }
  return rows;
}

const deployReadme = readFileSync(join(projectRoot, 'deploy/README.md'), 'utf8');
const deployGuide = readFileSync(join(projectRoot, 'docs/deploy.md'), 'utf8');
/** deploy/README.md's table of the Secret `fluxlens`: key → required. */
const documentedKeys = new Map(
  markdownTable(deployReadme, 'key').map(([key = '', required = '']) => [key, required === 'yes']),
);

describe('the Secret fluxlens, as documented and as mounted', () => {
  it('documents required and optional keys', () => {
    expect(documentedKeys.size).toBeGreaterThan(4);
    expect([...documentedKeys.values()]).toEqual(expect.arrayContaining([true, false]));
  });

  it.each(targets.map((t) => t.folder))(
    'mounts in %s only documented keys, optional exactly where the docs say optional',
    (folder) => {
      const uses = workloads(build(folder))
        .flatMap((w) => secretKeyUses(w.pod).map((u) => ({ ...u, workload: w.label })))
        .filter((u) => u.secret === 'fluxlens');
      const wrong = uses
        .filter((u) => documentedKeys.get(u.key) !== !u.optional)
        .map((u) => `${u.workload}: ${u.key} ${u.optional ? 'optional' : 'required'}`);
      expect(wrong).toEqual([]);
    },
  );

  it('reads every documented key in the base', () => {
    const read = workloads(build('deploy/kubernetes/base'))
      .flatMap((w) => secretKeyUses(w.pod))
      .filter((u) => u.secret === 'fluxlens')
      .map((u) => u.key);
    expect(new Set(read)).toEqual(new Set(documentedKeys.keys()));
  });

  it('starts server and worker with only the required keys: the optional files read as unset', () => {
    for (const w of workloads(build('deploy/kubernetes/base'))) {
      if (w.component !== 'server' && w.component !== 'worker') continue;
      const [container] = w.pod.containers;
      if (!container) throw new Error('a pod without containers');
      const optionalFiles = new Set(
        (w.pod.volumes ?? [])
          .filter((v) => v.secret?.optional === true)
          .flatMap((v) => {
            const mount = container.volumeMounts?.find((m) => m.name === v.name);
            return (v.secret?.items ?? []).map((i) => `${mount?.mountPath ?? ''}/${i.path}`);
          }),
      );
      expect(optionalFiles.size).toBeGreaterThan(0);
      const env = containerEnv(container, (key) =>
        key.endsWith('app-id') ? '123456' : 'k'.repeat(32),
      );
      const readFile = (path: string) => {
        if (optionalFiles.has(path)) {
          throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
        }
        return 'k'.repeat(32);
      };
      const role = w.component === 'server' ? 'server' : 'worker';
      const config = loadServiceConfig(role, env, { readFile });
      expect(config.apiToken).toBeUndefined();
      expect(config.reportSigningKey).toBeUndefined();
      expect(config.previousWebhookSecret).toBeUndefined();
    }
  });

  it('gives the server both webhook secrets while the Secret holds the previous one', () => {
    const server = workloads(build('deploy/kubernetes/base')).find(
      (w) => w.label === 'Deployment/fluxlens-server',
    );
    const [container] = server?.pod.containers ?? [];
    if (!container) throw new Error('no server container');
    const env = containerEnv(container, (key) => (key.endsWith('app-id') ? '123456' : 'unused'));
    const mounted = new Map(
      (server?.pod.volumes ?? []).flatMap((v) => {
        const mount = container.volumeMounts?.find((m) => m.name === v.name);
        return (v.secret?.items ?? []).map((i) => [`${mount?.mountPath ?? ''}/${i.path}`, i.key]);
      }),
    );
    // The Secret's keys as the mounted files hold them, each its own value.
    const readFile = (path: string) => `${mounted.get(path) ?? 'unmounted'}-value-0123456789`;
    const config = loadServiceConfig('server', env, { readFile });
    expect(config.webhookSecret).toBe('webhook-secret-value-0123456789');
    expect(config.previousWebhookSecret).toBe('webhook-secret-previous-value-0123456789');
  });

  it('is made by the kubectl command of docs/deploy.md, with every documented key', () => {
    const command = /```sh\n([^`]*kubectl[^`]*create secret generic fluxlens[^`]*)```/.exec(
      deployGuide,
    )?.[1];
    if (!command) throw new Error('docs/deploy.md has no `kubectl create secret` command');
    // kubectl itself is a script that records its arguments: no cluster here.
    const dir = tempDir('fluxlens-secret-command-');
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    const calls = join(dir, 'calls');
    writeFileSync(
      join(bin, 'kubectl'),
      `#!/bin/sh\nprintf '%s\\n' "$@" >> '${calls}'\necho '--' >> '${calls}'\n[ "$1" != get ]\n`,
    );
    chmodSync(join(bin, 'kubectl'), 0o755);
    for (const file of ['github-app-id', 'github-private-key', 'webhook-secret']) {
      writeFileSync(join(dir, file), `${file} from the App\n`);
    }
    execFileSync('bash', ['-euc', command], {
      cwd: dir,
      env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, HOME: dir },
    });
    const invocations = readFileSync(calls, 'utf8').split('--\n').filter(Boolean);
    const create = invocations.find((args) => args.includes('secret\ngeneric\nfluxlens\n'));
    expect(create).toMatch(/(^|\n)(-n\nfluxlens|--namespace=fluxlens)\n/);
    const keys = new Map<string, string>();
    for (const arg of create?.split('\n') ?? []) {
      const m = /^--from-(file|literal)=([^=]+)(?:=(.*))?$/.exec(arg);
      if (m) keys.set(m[2] ?? '', m[1] === 'literal' ? (m[3] ?? '') : 'file');
    }
    // The previous webhook secret is there only during a rotation, which docs/deploy.md
    // describes apart.
    const created = [...documentedKeys.keys()].filter((key) => key !== 'webhook-secret-previous');
    expect(new Set(keys.keys())).toEqual(new Set(created));
    const generated = [...keys.values()].filter((v) => v !== 'file');
    expect(generated.length).toBeGreaterThan(0);
    for (const value of generated) expect(value).toMatch(/^[0-9a-f]{64}$/);
    expect(invocations.some((args) => args.startsWith('create\nnamespace\nfluxlens\n'))).toBe(true);
  });
});

const RedisConfigMap = z.object({ data: z.object({ 'redis.conf': z.string() }) });

describe("the in-cluster Redis, started from its manifest's command with a real redis-server", () => {
  const password = 'a'.repeat(20) + '0123456789abcdef0123456789abcdef0123456789ab';
  let root: string;
  let port: number;
  let child: ChildProcess;
  let remap: (text: string) => string;
  let probe: string[];

  beforeAll(async () => {
    const base = build('deploy/kubernetes/base');
    const redis = workloads(base).find((w) => w.label === 'StatefulSet/fluxlens-redis');
    const [container] = redis?.pod.containers ?? [];
    if (!redis || !container) throw new Error('no Redis StatefulSet in the base');
    const configMap = base.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name === 'fluxlens-redis-config',
    );
    const conf = RedisConfigMap.parse(configMap).data['redis.conf'];
    // The container's file system under a scratch root: each mount where the pod has it.
    root = tempDir('fluxlens-redis-pod-');
    const mounts = container.volumeMounts ?? [];
    remap = (text) =>
      mounts.reduce((t, m) => t.replaceAll(m.mountPath, join(root, m.mountPath)), text);
    port = await freePort();
    for (const mount of mounts) {
      const path = join(root, mount.mountPath);
      const volume = redis.pod.volumes?.find((v) => v.name === mount.name);
      if (volume?.configMap) {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, remap(conf).replace(/^port 6379$/m, `port ${port}`));
      } else if (volume?.secret) {
        mkdirSync(path, { recursive: true });
        for (const item of volume.secret.items ?? []) {
          expect(item.key).toBe('redis-password');
          writeFileSync(join(path, item.path), password);
        }
      } else mkdirSync(path, { recursive: true });
    }
    const argv = [...(container.command ?? []), ...(container.args ?? [])].map(remap);
    probe = (container.readinessProbe?.exec?.command ?? []).map(remap);
    const [cmd = '', ...args] = argv;
    child = spawn(cmd, args, { stdio: 'ignore' });
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => 100,
    });
    client.on('error', () => undefined);
    await client.connect().catch(() => undefined);
    for (let i = 0; i < 100 && client.status !== 'ready'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    client.disconnect();
  });

  afterAll(() => {
    child?.kill();
  });

  it('runs a Redis release with the fixes of CVE-2025-21605, CVE-2025-49844 and CVE-2026-23479', () => {
    const redis = build('deploy/kubernetes/base').find((o) => o.kind === 'StatefulSet');
    const image = JSON.stringify(redis);
    const version = /redis:(\d+)\.(\d+)\.(\d+)/.exec(image)?.slice(1).map(Number) ?? [];
    // CVE-2026-23479 (use-after-free, 7.2.0 through 8.6.2) is fixed from 8.6.3 on.
    const [major = 0, minor = 0, patch = 0] = version;
    expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(8_006_003);
  });

  it('refuses a client without the password', async () => {
    const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0 });
    client.on('error', () => undefined);
    await expect(client.ping()).rejects.toThrow(/NOAUTH/);
    client.disconnect();
  });

  it('answers the URL server and worker build from the Secret, and keeps the settings fluxlens needs', async () => {
    const server = workloads(build('deploy/kubernetes/base')).find(
      (w) => w.label === 'Deployment/fluxlens-server',
    );
    const [container] = server?.pod.containers ?? [];
    if (!container) throw new Error('no server');
    const env = containerEnv(container, (key) => (key === 'redis-password' ? password : 'x'));
    const url = (env['FLUXLENS_REDIS_URL'] ?? '').replace(
      '@fluxlens-redis:6379',
      `@127.0.0.1:${port}`,
    );
    const client = new Redis(url, { maxRetriesPerRequest: 0 });
    try {
      expect(await client.ping()).toBe('PONG');
      const config = async (name: string) =>
        z.tuple([z.string(), z.string()]).parse(await client.config('GET', name))[1];
      expect(await config('protected-mode')).toBe('yes');
      expect(await config('appendonly')).toBe('yes');
      expect(await config('maxmemory-policy')).toBe('noeviction');
      const redis = workloads(build('deploy/kubernetes/base')).find(
        (w) => w.label === 'StatefulSet/fluxlens-redis',
      );
      const limit = redis?.pod.containers[0]?.resources?.limits?.['memory'];
      // Room for an append-only-file rewrite's copy-on-write pages beside the data.
      expect(Number(await config('maxmemory'))).toBeLessThanOrEqual(
        quantityBytes(String(limit)) / 2,
      );
    } finally {
      client.disconnect();
    }
  });

  it('keeps the password off the command line of redis-server', () => {
    const cmdline = readFileSync(`/proc/${child.pid ?? 0}/cmdline`, 'utf8');
    expect(cmdline).toContain('redis-server');
    expect(cmdline).not.toContain(password);
  });

  it('passes its readiness probe, which authenticates with the password from the Secret', () => {
    const [cmd = '', ...args] = probe;
    const env = { PATH: process.env['PATH'] ?? '' };
    // The probe runs redis-cli against the default port; here the server has its own.
    const withPort = args.map((a) => a.replace('redis-cli ping', `redis-cli -p ${port} ping`));
    expect(() => execFileSync(cmd, withPort, { env })).not.toThrow();
    const wrong = withPort.map((a) =>
      a.replace(join(root, '/etc/redis/auth'), join(root, 'nowhere')),
    );
    expect(() => execFileSync(cmd, wrong, { env, stdio: 'ignore' })).toThrow();
  });
});

/** One egress rule of deploy/'s network policies: where to, and its ports. */
const EgressRuleSchema = z.object({
  to: z
    .array(z.object({ podSelector: z.object({ matchLabels: z.record(z.string(), z.string()) }) }))
    .optional(),
  ports: z.array(z.object({ port: z.number(), protocol: z.string() })),
});

const PolicySchema = z.object({
  kind: z.literal('NetworkPolicy'),
  metadata: z.object({ name: z.string() }),
  spec: z.object({
    policyTypes: z.array(z.string()),
    egress: z.array(EgressRuleSchema).optional(),
  }),
});

/** Where server and workers may connect, one `to: port/protocol` per port, sorted. */
function egressRows(built: K8sObject[]): string[] {
  const rows: string[] = [];
  for (const object of built) {
    const policy = PolicySchema.safeParse(object);
    if (!policy.success || !policy.data.spec.policyTypes.includes('Egress')) continue;
    // Redis's own policy opens nothing; the others are the server's and workers'.
    if (policy.data.metadata.name === 'fluxlens-redis') continue;
    for (const rule of policy.data.spec.egress ?? []) {
      const component = rule.to?.[0]?.podSelector.matchLabels['app.kubernetes.io/component'];
      const to = component === undefined ? 'any address' : `the in-cluster ${component} pods`;
      rows.push(...rule.ports.map((p) => `${to}: ${p.port}/${p.protocol}`));
    }
  }
  return rows.sort();
}

describe('docs/security.md on egress', () => {
  const security = readFileSync(join(projectRoot, 'docs/security.md'), 'utf8');

  it("lists exactly the base's egress for server and workers", () => {
    const documented = markdownTable(security, 'to').flatMap(([to = '', ports = '']) =>
      ports.split(', ').map((port) => `${to}: ${port}`),
    );
    expect(documented.sort()).toEqual(egressRows(build('deploy/kubernetes/base')));
  });

  it.each(['egress-ports', 'private-registries', 'external-redis'])(
    'names the Component %s with the ports it opens',
    (folder) => {
      const baseNames = new Set(build('deploy/kubernetes/base').map(label));
      const added = build(`deploy/kubernetes/components/${folder}`).filter(
        (o) => o.kind === 'NetworkPolicy' && !baseNames.has(label(o)),
      );
      const ports = egressRows(added).flatMap((row) =>
        [...row.matchAll(/(\d+)\/TCP/g)].map((m) => m[1] ?? ''),
      );
      expect(ports.length).toBeGreaterThan(0);
      // The list item that names the Component, over however many lines it wraps.
      const lines = security.split('\n');
      const start = lines.findIndex(
        (l) => l.startsWith('- ') && l.includes(`components/${folder}`),
      );
      const rest = lines.slice(start + 1);
      const end = rest.findIndex((l) => l.startsWith('- ') || l.trim() === '');
      const item = [lines[start], ...rest.slice(0, end)].join(' ');
      expect(start).toBeGreaterThanOrEqual(0);
      for (const port of ports) expect(item).toContain(`${port}/TCP`);
    },
  );
});
