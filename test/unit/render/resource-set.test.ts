/**
 * How a ResourceSet's input sets are gathered and combined before its templates run:
 * inline sets, Static providers chosen by name or label selector, Flatten and Permute, and
 * which sources make the set not assessed.
 */
import { describe, expect, it } from 'vitest';
import { expandResourceSet } from '../../../src/render/flux/resource-set.js';
import { objectMeta, type Manifest } from '../../../src/model/render.js';

function provider(name: string, labels: Record<string, string>, spec: object): Manifest {
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'ResourceSetInputProvider',
    metadata: { name, namespace: 'apps', labels },
    spec,
  };
}

const PROVIDERS = [
  provider(
    'tenant-a',
    { role: 'tenant', tier: 'gold' },
    { type: 'Static', defaultValues: { tenant: 'a' } },
  ),
  provider(
    'tenant-b',
    { role: 'tenant', tier: 'silver' },
    { type: 'Static', defaultValues: { tenant: 'b' } },
  ),
  provider(
    'previews',
    { role: 'preview' },
    { type: 'GitHubPullRequest', url: 'https://github.com/example/app' },
  ),
];

function set(spec: Record<string, unknown>): Manifest {
  return {
    apiVersion: 'fluxcd.controlplane.io/v1',
    kind: 'ResourceSet',
    metadata: { name: 'apps', namespace: 'apps' },
    spec: {
      resources: [
        {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: '<< inputs.tenant >>', namespace: 'apps' },
        },
      ],
      ...spec,
    },
  };
}

const names = (manifest: Manifest) => {
  const out = expandResourceSet(manifest, 'apps', () => PROVIDERS);
  return 'objects' in out ? out.objects.map((o) => objectMeta(o).name) : out;
};

describe('the input sets of a ResourceSet', () => {
  it.each([
    ['inline sets, in order', { inputs: [{ tenant: 'one' }, { tenant: 'two' }] }, ['one', 'two']],
    ['a Static provider by name', { inputsFrom: [{ name: 'tenant-b' }] }, ['b']],
    [
      'Static providers by matchLabels and matchExpressions',
      {
        inputsFrom: [
          {
            selector: {
              matchLabels: { role: 'tenant' },
              matchExpressions: [{ key: 'tier', operator: 'In', values: ['gold', 'bronze'] }],
            },
          },
        ],
      },
      ['a'],
    ],
    [
      'inline sets then providers, flattened',
      { inputs: [{ tenant: 'x' }], inputsFrom: [{ name: 'tenant-a' }] },
      ['x', 'a'],
    ],
  ])('come from %s', (_case, spec, expected) => {
    expect(names(set(spec))).toEqual(expected);
  });

  it('permutes sources, each set under its source name, keeping an inline id', () => {
    const manifest = set({
      inputStrategy: { name: 'Permute' },
      inputs: [{ id: 'blue' }, { id: 'green' }],
      inputsFrom: [{ selector: { matchLabels: { role: 'tenant' } } }],
      resources: [
        {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: '<< inputs.tenant_a.tenant >>-<< inputs.apps.id >>' },
          data: { from: '<< inputs.tenant_b.provider.name >>' },
        },
      ],
    });
    // Two tenants permuted with two colours; Namespace names depend on tenant-a and colour.
    expect(names(manifest)).toEqual(['a-blue', 'a-green']);
  });

  it('is not assessed when a provider needs an API', () => {
    expect(
      expandResourceSet(set({ inputsFrom: [{ name: 'previews' }] }), 'apps', () => PROVIDERS),
    ).toEqual({
      notAssessed:
        'its inputs come from ResourceSetInputProvider apps/previews of type GitHubPullRequest, which fluxlens does not fetch',
    });
  });

  it('is not assessed when a named provider is not in the rendered cluster', () => {
    expect(
      expandResourceSet(set({ inputsFrom: [{ name: 'gone' }] }), 'apps', () => PROVIDERS),
    ).toEqual({
      notAssessed: 'its ResourceSetInputProvider apps/gone is not in the rendered cluster',
    });
  });

  it('applies its resources once when it has no inputs at all', () => {
    const manifest = set({
      resources: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shared' } }],
    });
    expect(names(manifest)).toEqual(['shared']);
  });
});
