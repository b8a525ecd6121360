import { describe, expect, it } from 'vitest';
import type { Producer } from '../../../src/model/render.js';
import {
  APPS,
  DEFAULT_PRODUCERS,
  PODINFO,
  ROOT,
  findingsOf,
  producer,
  type Scenario,
} from './scenario.js';

const SECRETS =
  'the rendered cluster has no Secret flux-system/cluster-secrets: variables no other source defines read as unknown-<name>';
const VARS =
  'the rendered cluster has no ConfigMap flux-system/cluster-vars: variables no other source defines read as unknown-<name>';
const AUTH = 'the rendered cluster has no Secret podinfo/auth: valuesFrom leaves its values out';

/** The default producers, APPS and PODINFO assuming what is given. */
function assuming(apps: string[] = [], podinfo: string[] = []): Producer[] {
  const with_ = (assumed: string[]) => (assumed.length > 0 ? { assumed } : {});
  return [
    DEFAULT_PRODUCERS[0]!,
    producer(APPS, { definedIn: { parent: ROOT }, ...with_(apps) }),
    producer(PODINFO, { definedIn: { parent: APPS }, ...with_(podinfo) }),
  ];
}

const RULE = 'source-in-cluster-only';

describe('source-in-cluster-only', () => {
  it.each<[string, Scenario, Array<{ name: string; says: string[]; not?: string }>]>([
    [
      'flags a Kustomization that starts substituting from a Secret only the cluster holds',
      { base: [], head: [], baseProducers: assuming(), headProducers: assuming([SECRETS]) },
      [{ name: 'apps', says: [SECRETS] }],
    ],
    [
      'flags a new HelmRelease reading values from one',
      {
        base: [],
        head: [],
        baseProducers: DEFAULT_PRODUCERS.slice(0, 2),
        headProducers: assuming([], [AUTH]),
      },
      [{ name: 'podinfo', says: [AUTH] }],
    ],
    [
      'says it once per producer, naming every source it starts reading',
      {
        base: [],
        head: [],
        baseProducers: assuming(),
        headProducers: assuming([SECRETS, VARS]),
      },
      [{ name: 'apps', says: [SECRETS, VARS] }],
    ],
    [
      'names only the source the change adds when another one was read before',
      {
        base: [],
        head: [],
        baseProducers: assuming([SECRETS]),
        headProducers: assuming([SECRETS, VARS]),
      },
      [{ name: 'apps', says: [VARS], not: SECRETS }],
    ],
    [
      'stays quiet when the producer read it before the change',
      {
        base: [],
        head: [],
        baseProducers: assuming([SECRETS], [AUTH]),
        headProducers: assuming([SECRETS], [AUTH]),
      },
      [],
    ],
    [
      'stays quiet when the change stops reading it',
      { base: [], head: [], baseProducers: assuming([SECRETS]), headProducers: assuming() },
      [],
    ],
    ['stays quiet when nothing is assumed', { base: [], head: [] }, []],
  ])('%s', (_name, scenario, expected) => {
    const findings = findingsOf(scenario, RULE);
    expect(findings.map((f) => f.resource.name)).toEqual(expected.map((e) => e.name));
    findings.forEach((finding, i) => {
      const { says = [], not } = expected[i] ?? {};
      expect(finding.level).toBe('info');
      for (const text of says) expect(finding.message).toContain(text);
      if (not !== undefined) expect(finding.message).not.toContain(not);
    });
  });
});
