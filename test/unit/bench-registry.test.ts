/**
 * The registry-mode benchmark's preparation, with real git and helm: the commits it makes
 * (chart sources moved to a local registry, base and head alike; the scenario heads) and
 * the stub charts, whose output must follow a release's images and values.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import {
  everyReleaseHead,
  git,
  onePrHead,
  sharedComponentHead,
  withRegistry,
} from '../../bench/registry/commits.js';
import { chartRefs, writeStubChart } from '../../bench/registry/stub-charts.js';
import { scratchDirs } from '../support/scratch-dirs.js';

const { tempDir } = scratchDirs();

const SOURCE = `---
apiVersion: source.toolkit.fluxcd.io/v1
kind: OCIRepository
metadata:
  name: app
spec:
  interval: 15m
  ref:
    tag: 4.2.0
  url: oci://ghcr.io/bjw-s-labs/helm/app-template
`;

const RELEASE = `---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata:
  name: app
spec:
  chartRef:
    kind: OCIRepository
    name: app
  values:
    image:
      tag: 1.0.0
`;

const COMPONENT = `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: \${APP}
data:
  a: b
`;

function repository(): { repo: string; base: string; pr: string } {
  const repo = tempDir('bench-registry-');
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  git(repo, 'init', '-q');
  write('apps/app/source.yaml', SOURCE);
  write('apps/app/release.yaml', RELEASE);
  write('components/common/configmap.yaml', COMPONENT);
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'base');
  const base = git(repo, 'rev-parse', 'HEAD');
  write('apps/app/release.yaml', RELEASE.replace('1.0.0', '1.1.0'));
  git(repo, 'commit', '-q', '-am', 'bump');
  return { repo, base, pr: git(repo, 'rev-parse', 'HEAD') };
}

const show = (repo: string, rev: string, path: string) => git(repo, 'show', `${rev}:${path}`);

describe('registry benchmark commits', () => {
  it('moves every OCI chart source under the registry, insecure, on the given parent', () => {
    const { repo, base, pr } = repository();
    const mappedBase = withRegistry(repo, base, base, '127.0.0.1:5000');
    const mappedHead = withRegistry(repo, pr, mappedBase, '127.0.0.1:5000');
    const source = parse(show(repo, mappedHead, 'apps/app/source.yaml'));
    expect(source.spec.url).toBe('oci://127.0.0.1:5000/ghcr.io/bjw-s-labs/helm/app-template');
    expect(source.spec.insecure).toBe(true);
    expect(git(repo, 'rev-parse', `${mappedHead}^1`)).toBe(mappedBase);
    // The PR's own change survives, and is the only difference from the mapped base.
    expect(git(repo, 'diff', '--name-only', mappedBase, mappedHead)).toBe('apps/app/release.yaml');
  });

  it('reads each chart source as a chart name and version', () => {
    const { repo, base } = repository();
    expect(chartRefs(repo, base)).toEqual([
      { path: 'ghcr.io/bjw-s-labs/helm/app-template', version: '4.2.0' },
    ]);
  });

  it('builds the scenario heads on the base: the PR with a new line, a component, every release', () => {
    const { repo, base, pr } = repository();
    const one = onePrHead(repo, pr, 'run-1');
    expect(git(repo, 'rev-parse', `${one}^1`)).toBe(base);
    expect(show(repo, one, 'apps/app/release.yaml')).toMatch(/tag: 1\.1\.0\n# run-1$/);
    expect(onePrHead(repo, pr, 'run-2')).not.toBe(one);

    const shared = sharedComponentHead(repo, base, 'components/common/configmap.yaml', 'run-1');
    const configMap = parse(show(repo, shared, 'components/common/configmap.yaml'));
    expect(configMap.metadata.labels).toEqual({ 'bench.fluxlens.io/shared': 'run-1' });

    const wide = everyReleaseHead(repo, base, 'run-1');
    const release = parseAllDocuments(show(repo, wide, 'apps/app/release.yaml'))[0]?.toJS();
    expect(release.spec.values).toEqual({ image: { tag: '1.0.0' }, benchRevision: 'run-1' });
    expect(git(repo, 'diff', '--name-only', base, wide)).toBe('apps/app/release.yaml');
  });
});

describe('stub charts', () => {
  const template = (values: unknown) => {
    const chart = writeStubChart(tempDir('bench-stub-'), 'app-template', '4.2.0');
    const file = join(dirname(chart), 'values.json');
    writeFileSync(file, JSON.stringify(values));
    const out = execFileSync('helm', ['template', 'app', chart, '-f', file], { encoding: 'utf8' });
    return parse(out);
  };

  it.each([
    ['image', { image: { repository: 'ghcr.io/a/b', tag: '1.0.0' } }, ['ghcr.io/a/b:1.0.0']],
    [
      "app-template's controllers",
      { controllers: { main: { containers: { app: { image: { repository: 'x', tag: '2' } } } } } },
      ['x:2'],
    ],
    ['no image at all', { replicas: 2 }, ['stub:4.2.0']],
    ['an image given as a string', { image: 'nginx:1' }, ['stub:4.2.0']],
  ])('renders a Deployment with the images of %s', (_, values, images) => {
    const deployment = template(values);
    expect(deployment.kind).toBe('Deployment');
    expect(deployment.spec.template.spec.containers.map((c: { image: string }) => c.image)).toEqual(
      images,
    );
  });

  it('changes its output when any value changes', () => {
    const checksum = (values: unknown) =>
      template(values).spec.template.metadata.annotations['checksum/values'];
    expect(checksum({ a: 1 })).not.toBe(checksum({ a: 2 }));
  });
});
