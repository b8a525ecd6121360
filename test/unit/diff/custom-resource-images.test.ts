/** The images table reads pod templates inside custom resources as it reads workloads. */
import { describe, expect, it } from 'vitest';
import type { Manifest } from '../../../src/model/render.js';
import { diff, rendered } from './build-cluster.js';

const runnerSet = (runner: string, listener: string): Manifest => ({
  apiVersion: 'actions.github.com/v1alpha1',
  kind: 'AutoscalingRunnerSet',
  metadata: { name: 'arc-runners', namespace: 'arc' },
  spec: {
    githubConfigUrl: 'https://github.com/acme',
    template: { spec: { containers: [{ name: 'runner', image: runner }] } },
    listenerTemplate: { spec: { containers: [{ name: 'listener', image: listener }] } },
  },
});

describe('image changes in custom resources', () => {
  it('lists the runner image an AutoscalingRunnerSet moves, and not the one it keeps', () => {
    const result = diff(
      [rendered(runnerSet('ghcr.io/actions/actions-runner:2.320.0', 'ghcr.io/acme/listener:1'))],
      [rendered(runnerSet('ghcr.io/actions/actions-runner:2.321.0', 'ghcr.io/acme/listener:1'))],
    );
    expect(result.changes.map((c) => c.fields.map((f) => f.path))).toEqual([
      ['spec.template.spec.containers[runner].image'],
    ]);
    expect(result.summary.images).toEqual([
      { repository: 'ghcr.io/actions/actions-runner', from: '2.320.0', to: '2.321.0' },
    ]);
  });
});
