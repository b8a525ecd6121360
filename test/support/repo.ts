/** Throwaway repositories written from a map of files, optionally committed to git. */
import { stringify } from 'yaml';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** File contents by repository-relative path; `{ symlink: target }` makes a symlink. */
export type RepoFiles = Record<string, string | { symlink: string }>;

export interface TestRepo {
  dir: string;
  write(files: RepoFiles): void;
  /** Commits everything and returns the commit SHA. */
  commit(message?: string): string;
  remove(): void;
}

export function makeRepo(files: RepoFiles, options: { git?: boolean } = {}): TestRepo {
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-repo-'));
  const git = (...args: string[]): string =>
    execFileSync('git', ['-C', dir, ...args], {
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
    }).trim();
  const repo: TestRepo = {
    dir,
    write(more) {
      for (const [path, content] of Object.entries(more)) {
        const full = join(dir, path);
        mkdirSync(dirname(full), { recursive: true });
        rmSync(full, { force: true });
        if (typeof content === 'string') writeFileSync(full, content);
        else symlinkSync(content.symlink, full);
      }
    },
    commit(message = 'change') {
      git('add', '-A');
      git(
        '-c',
        'user.name=t',
        '-c',
        'user.email=t@example.com',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        message,
      );
      return git('rev-parse', 'HEAD');
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  repo.write(files);
  if (options.git) git('init', '-q', '-b', 'main');
  return repo;
}

/** A bootstrap flux-system GitRepository and Kustomization pointing at `path`. */
export function bootstrap(path: string): string {
  return `apiVersion: source.toolkit.fluxcd.io/v1
kind: GitRepository
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 1m
  url: ssh://git@github.com/example/fleet
  ref:
    branch: main
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata:
  name: flux-system
  namespace: flux-system
spec:
  interval: 10m
  path: ${path}
  prune: true
  sourceRef:
    kind: GitRepository
    name: flux-system
`;
}

/** Documents as one YAML stream, the way a file in a Flux repository holds them. */
export function yamlStream(...docs: object[]): string {
  return docs.map((d) => stringify(d)).join('---\n');
}

/** A Flux Kustomization in flux-system that applies `path` of this repository. */
export function fluxKustomization(name: string, path: string): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
    kind: 'Kustomization',
    metadata: { name, namespace: 'flux-system' },
    spec: {
      interval: '10m',
      path,
      prune: true,
      sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    },
  };
}

/**
 * A cluster of `count` Flux Kustomizations app-0 ... app-N, each applying one ConfigMap of
 * namespace apps (`data(i)` its data), behind the bootstrap at clusters/prod.
 */
export function configMapApps(
  count: number,
  data: (app: number) => Record<string, string>,
): Record<string, string> {
  const files: Record<string, string> = {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
  };
  for (let i = 0; i < count; i += 1) {
    files[`clusters/prod/app-${i}.yaml`] = yamlStream(
      fluxKustomization(`app-${i}`, `./apps/app-${i}`),
    );
    files[`apps/app-${i}/kustomization.yaml`] = 'resources:\n  - config.yaml\n';
    files[`apps/app-${i}/config.yaml`] = configMapApp(i, data(i));
  }
  return files;
}

/** The ConfigMap app `app` of configMapApps applies. */
export function configMapApp(app: number, data: Record<string, string>): string {
  return yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `app-${app}`, namespace: 'apps' },
    data,
  });
}

/**
 * A HelmRelease of a chart folder in this repository (`chart`, e.g. './charts/web'),
 * through the bootstrap GitRepository; `spec` adds to or overrides its spec.
 */
export function repositoryChartRelease(
  name: string,
  namespace: string,
  chart: string,
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  const sourceRef = { kind: 'GitRepository', name: 'flux-system', namespace: 'flux-system' };
  return helmRelease(name, namespace, { chart, sourceRef }, spec);
}

/**
 * A HelmRelease of chart `chart` at `version` from the HelmRepository `repository` of its
 * namespace; `spec` adds to or overrides its spec.
 */
export function helmRepositoryRelease(
  name: string,
  namespace: string,
  chart: { chart: string; version: string; repository: string },
  spec: Record<string, unknown> = {},
): Record<string, unknown> {
  const { repository, ...request } = chart;
  const sourceRef = { kind: 'HelmRepository', name: repository };
  return helmRelease(name, namespace, { ...request, sourceRef }, spec);
}

function helmRelease(
  name: string,
  namespace: string,
  chartSpec: Record<string, unknown>,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return {
    apiVersion: 'helm.toolkit.fluxcd.io/v2',
    kind: 'HelmRelease',
    metadata: { name, namespace },
    spec: { interval: '1h', chart: { spec: chartSpec }, ...spec },
  };
}
