/**
 * A clone that lacks some blobs (a blobless partial clone, or a damaged one): the review
 * writes out only what the builds read, so a blob missing anywhere else changes nothing,
 * and one missing from what a build reads fails that producer alone, naming the file.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { analyzeBranches } from '../support/render.js';
import {
  bootstrap,
  fluxKustomization,
  makeRepo,
  repositoryChartRelease,
  yamlStream,
  type RepoFiles,
  type TestRepo,
} from '../support/repo.js';

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const configMap = (name: string, value: string) =>
  yamlStream({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'apps' },
    data: { value },
  });

function files(value: string): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': yamlStream(
      fluxKustomization('a', './apps/a'),
      fluxKustomization('b', './apps/b'),
    ),
    'clusters/prod/web.yaml': yamlStream(repositoryChartRelease('web', 'apps', './charts/web')),
    'charts/web/Chart.yaml': 'apiVersion: v2\nname: web\nversion: 1.0.0\n',
    'charts/web/templates/cm.yaml':
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n',
    'apps/a/cm.yaml': configMap('a', value),
    'apps/b/cm.yaml': configMap('b', 'b'),
    'docs/guide.md': '# How this cluster is run\n',
  };
}

/** Base and head (app a's value changed); `lacking` files lose their blob at both. */
function damagedClone(lacking: string[]): { repo: TestRepo; base: string; head: string } {
  const repo = makeRepo(files('one'), { git: true });
  repos.push(repo);
  const base = repo.commit('base');
  repo.write({ 'apps/a/cm.yaml': configMap('a', 'two') });
  const head = repo.commit('head');
  for (const path of lacking) {
    const oid = execFileSync('git', ['-C', repo.dir, 'rev-parse', `${head}:${path}`], {
      encoding: 'utf8',
    }).trim();
    rmSync(join(repo.dir, '.git', 'objects', oid.slice(0, 2), oid.slice(2)));
  }
  return { repo, base, head };
}

describe('a clone that lacks blobs', () => {
  it('reviews as if whole when the missing blob is one no build reads', async () => {
    const { repo, base, head } = damagedClone(['docs/guide.md']);
    const result = await analyzeBranches(repo.dir, base, head);
    expect(result.errors).toEqual([]);
    expect(result.changes.map((c) => `${c.status} ${c.kind} ${c.name}`)).toEqual([
      'changed ConfigMap a',
    ]);
  });

  it('fails only the producer whose build reads the missing blob, naming the file', async () => {
    const { repo, base, head } = damagedClone(['apps/b/cm.yaml']);
    const result = await analyzeBranches(repo.dir, base, head);
    const errors = result.errors.map((e) => `${e.side} ${e.producer.name} ${e.file ?? ''}`);
    expect(errors).toEqual(['base b apps/b/cm.yaml', 'head b apps/b/cm.yaml']);
    expect(result.errors[0]?.message).toMatch(/lacks the content of 'apps\/b\/cm\.yaml'/);
    expect(result.changes.map((c) => `${c.status} ${c.kind} ${c.name}`)).toEqual([
      'changed ConfigMap a',
    ]);
  });

  it('fails a release whose chart in the repository lacks a file', async () => {
    const { repo, base, head } = damagedClone(['charts/web/templates/cm.yaml']);
    const result = await analyzeBranches(repo.dir, base, head);
    const errors = result.errors.map((e) => `${e.side} ${e.producer.kind} ${e.producer.name}`);
    expect(errors).toEqual(['base HelmRelease web', 'head HelmRelease web']);
    expect(result.errors[0]?.message).toMatch(/charts\/web\/templates\/cm\.yaml/);
    expect(result.changes.map((c) => `${c.status} ${c.kind} ${c.name}`)).toEqual([
      'changed ConfigMap a',
    ]);
  });
});
