import { describe, expect, it } from 'vitest';
import { renderText } from '../../../src/report/text.js';
import {
  analysis,
  change,
  clusterSummary,
  finding,
  helmRelease,
  kustomization,
} from './analysis-builders.js';

const ESC = '\u001b';

const result = analysis({
  changes: [
    change({
      name: 'web',
      file: 'apps/web.yaml',
      diff: '--- a\n+++ b\n@@ -1,2 +1,2 @@\n spec:\n-  replicas: 1\n+  replicas: 2\n',
    }),
    change({
      name: 'db',
      kind: 'StatefulSet',
      status: 'removed',
      producer: helmRelease('postgres'),
      diff: '@@ -1 +0,0 @@\n-kind: StatefulSet\n',
    }),
  ],
  findings: [
    finding({
      level: 'danger',
      message: 'Deletes a StatefulSet',
      resource: { kind: 'StatefulSet', namespace: 'apps', name: 'db' },
      file: 'db/release.yaml',
      line: 4,
      rule: 'statefulset-delete',
    }),
    finding({ level: 'info', message: 'Scales web' }),
  ],
  clusters: [
    clusterSummary({
      images: [{ repository: 'docker.io/library/nginx', from: '1.25', to: '1.26' }],
      errorsIntroduced: [
        { producer: kustomization('broken'), message: 'build failed:\n  missing file' },
      ],
    }),
  ],
});

describe('renderText', () => {
  it('prints verdict, findings, counts, images, errors and grouped diffs without colour', () => {
    expect(renderText(result, { color: false })).toBe(
      [
        'fluxlens DANGER Scales the web Deployment',
        'main (aaaaaaaaaaaa) → feature (bbbbbbbbbbbb)',
        '0 added, 1 removed, 1 changed, 0 moved, 2 findings (1 danger, 1 info)',
        '',
        'Findings',
        '  DANGER StatefulSet/apps/db',
        '    from HelmRelease/apps/postgres at db/release.yaml:4',
        '    Deletes a StatefulSet (statefulset-delete)',
        '  INFO Deployment/apps/web',
        '    from Kustomization/flux-system/apps at apps/web.yaml',
        '    Scales web (test-rule)',
        '',
        'Image changes',
        '  docker.io/library/nginx  1.25 → 1.26',
        '',
        'Render errors introduced',
        '  Kustomization/flux-system/broken',
        '    build failed:',
        '      missing file',
        '',
        'Changes',
        'cluster default: 1 removed, 1 changed in 2 producers',
        '  DANGER HelmRelease/apps/postgres: 1 removed',
        '    removed StatefulSet/apps/db',
        '      @@ -1 +0,0 @@',
        '      -kind: StatefulSet',
        '  INFO Kustomization/flux-system/apps: 1 changed',
        '    changed Deployment/apps/web (apps/web.yaml)',
        '      @@ -1,2 +1,2 @@',
        '       spec:',
        '      -  replicas: 1',
        '      +  replicas: 2',
        '',
      ].join('\n'),
    );
  });

  it('colours badges and diff lines when colour is on', () => {
    const text = renderText(result, { color: true });
    expect(text).toContain(`${ESC}[1m${ESC}[31mDANGER${ESC}[0m${ESC}[0m`);
    expect(text).toContain(`${ESC}[32m+  replicas: 2${ESC}[0m`);
    expect(text).toContain(`${ESC}[31m-  replicas: 1${ESC}[0m`);
    expect(text).toContain(`${ESC}[36m@@ -1,2 +1,2 @@${ESC}[0m`);
  });

  it('prints no escape sequence when colour is off', () => {
    expect(renderText(result, { color: false })).not.toContain(ESC);
  });

  it('strips control characters a repository could use to rewrite the terminal', () => {
    const hostile = analysis({
      changes: [
        change({ name: `evil${ESC}[2J`, diff: `@@ -1 +1 @@\n+x: "${ESC}]0;owned\u0007"\n` }),
      ],
      findings: [finding({ message: `clears${ESC}[2J the screen` })],
    });
    for (const color of [false, true]) {
      const text = renderText(hostile, { color });
      expect(text).not.toContain(`${ESC}[2J`);
      expect(text).not.toContain(`${ESC}]0;`);
      expect(text).toContain('evil\ufffd[2J');
    }
  });

  it('ends with the full report link when there is one', () => {
    const text = renderText(analysis({ reportUrl: 'https://fluxlens.example/r/1' }), {
      color: false,
    });
    expect(text.endsWith('No object changes.\n\nFull report: https://fluxlens.example/r/1\n')).toBe(
      true,
    );
  });
});
