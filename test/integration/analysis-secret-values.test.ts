/**
 * A Secret value that postBuild.substituteFrom copies into other objects (a ConfigMap, a
 * Certificate) never shows in any report, nor do 8 characters of it, and rotating it still
 * shows the objects that carry it as changed.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { AnalysisResult } from '../../src/model/analysis.js';
import { analyze as analyzeOutcome } from '../../src/analysis/index.js';
import { renderCheckRun } from '../../src/report/check-run.js';
import { renderHtml } from '../../src/report/html.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderText } from '../../src/report/text.js';
import { expectValidAnalysis } from '../support/analysis-schema.js';
import { testMachine, testRenderOptions, testRunner } from '../support/render.js';
import { bootstrap, makeRepo, type RepoFiles, type TestRepo, yamlStream } from '../support/repo.js';

const machine = testMachine;

/** The analysis result; the outcome's failOn and revisions are checked elsewhere. */
async function analyze(...args: Parameters<typeof analyzeOutcome>) {
  return (await analyzeOutcome(...args)).result;
}
const runner = testRunner();

const repos: TestRepo[] = [];
afterAll(() => repos.forEach((r) => r.remove()));

const yaml = yamlStream;

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-C', dir, ...args], {
    env: { PATH: process.env['PATH'] ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' },
  });
}

/** 24 random characters (and a base64 token): no 8 of them turn up in a report by chance. */
interface Values {
  password: string;
  token: string;
}

function values(): Values {
  return {
    password: randomBytes(18).toString('base64url'),
    token: randomBytes(24).toString('hex'),
  };
}

function clusterSecrets(v: Values): object {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'cluster-secrets', namespace: 'flux-system' },
    type: 'Opaque',
    data: { API_TOKEN: Buffer.from(v.token).toString('base64') },
    stringData: { DB_PASSWORD: v.password },
  };
}

const APPS_KUSTOMIZATION = yaml({
  apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
  kind: 'Kustomization',
  metadata: { name: 'apps', namespace: 'flux-system' },
  spec: {
    interval: '10m',
    path: './apps',
    prune: true,
    sourceRef: { kind: 'GitRepository', name: 'flux-system' },
    postBuild: { substituteFrom: [{ kind: 'Secret', name: 'cluster-secrets' }] },
  },
});

// Written as text: the ${...} references are substituted at render time.
const APPS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: db-config
  namespace: apps
  annotations:
    example.com/dsn: "user=web password=\${DB_PASSWORD}"
data:
  url: postgres://web:\${DB_PASSWORD}@db.example.com:5432/web
  token: \${API_TOKEN}
  key-\${DB_PASSWORD}: made from the value
  port: "5432"
---
apiVersion: cert-manager.io/v1
kind: Certificate
metadata:
  name: web
  namespace: apps
spec:
  secretName: web-tls
  dnsNames:
    - web.example.com
  keystores:
    pkcs12:
      create: true
      password: p12-\${DB_PASSWORD}
`;

function files(v: Values): RepoFiles {
  return {
    'clusters/prod/flux-system.yaml': bootstrap('./clusters/prod'),
    'clusters/prod/apps.yaml': APPS_KUSTOMIZATION,
    'clusters/prod/cluster-secrets.yaml': yaml(clusterSecrets(v)),
    'apps/config.yaml': APPS,
  };
}

/** Every string no report may hold 8 characters of: the values and the token's base64. */
function secretStrings(v: Values): string[] {
  return [v.password, v.token, Buffer.from(v.token).toString('base64')];
}

function leakedSubstring(output: string, secrets: readonly string[]): string | undefined {
  for (const s of secrets) {
    for (let i = 0; i + 8 <= s.length; i++) {
      const piece = s.slice(i, i + 8);
      if (output.includes(piece)) return piece;
    }
  }
  return undefined;
}

function outputs(result: AnalysisResult): Record<string, string> {
  return {
    json: renderJson(result),
    markdown: renderMarkdown(result),
    text: renderText(result, { color: false }),
    'coloured text': renderText(result, { color: true }),
    html: renderHtml(result),
    'check run': JSON.stringify(renderCheckRun(result, 'danger')),
  };
}

async function analyzePullRequest(base: Values, head: Values): Promise<AnalysisResult> {
  const repo = makeRepo(files(base), { git: true });
  repos.push(repo);
  repo.commit('base');
  git(repo.dir, 'checkout', '-q', '-b', 'pr');
  repo.write(files(head));
  repo.commit('rotate the secrets');
  const result = await analyze(
    {
      repoDir: repo.dir,
      paths: ['clusters/prod'],
      engine: 'builtin',
      render: testRenderOptions,
      sources: [],
      base: 'main',
      head: 'pr',
    },
    { runner, machine, now: () => 0 },
  );
  expectValidAnalysis(JSON.parse(renderJson(result)));
  return result;
}

describe('Secret values substituted by postBuild.substituteFrom', () => {
  it('never show, nor any 8 characters of them, in any report', async () => {
    const base = values();
    const head = values();
    const result = await analyzePullRequest(base, head);
    const secrets = [...secretStrings(base), ...secretStrings(head)];
    for (const [format, output] of Object.entries(outputs(result))) {
      expect({ format, leaked: leakedSubstring(output, secrets) }).toEqual({
        format,
        leaked: undefined,
      });
    }
    expect(result.errors).toEqual([]);
  });

  it('still show a rotation as a change of every object that carries them', async () => {
    const result = await analyzePullRequest(values(), values());
    const byId = new Map(result.changes.map((c) => [c.id, c]));
    const config = byId.get('/ConfigMap/apps/db-config');
    expect(config?.status).toBe('changed');
    expect(config?.fields.map((f) => f.path)).toEqual(
      expect.arrayContaining(['data.token', 'data.url']),
    );
    expect(config?.diff).toContain('+  url: postgres://web:<redacted:changed>@db.example.com');
    expect(config?.diff).toContain('key-<redacted');
    const cert = byId.get('cert-manager.io/Certificate/apps/web');
    expect(cert?.status).toBe('changed');
    expect(cert?.fields.map((f) => f.path)).toEqual(['spec.keystores.pkcs12.password']);
    expect(byId.get('/Secret/flux-system/cluster-secrets')?.status).toBe('changed');
  });
});
