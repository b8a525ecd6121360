/** The repository policy (`.fluxlens.yaml`, read from the base revision), as parsed. */
import type { FailOn, Level } from '../model/index.js';

export interface Policy {
  /** Rule id -> level override, or 'off'. */
  levels: Record<string, Level | 'off'>;
  /** Findings to drop: a rule id (or '*') and a resource glob `Kind/namespace/name` (or '*'). */
  ignores: Array<{ rule: string; resource: string }>;
  /** Extra normalisation before comparing, on top of the defaults. */
  normalize: { labels: string[]; annotations: string[]; fields: string[] };
  /** Substrings that mark a gateway or ingress class as public. */
  publicGateways: string[];
  failOn: FailOn;
  /** Named entry paths: one repository, several clusters. Empty: the root is one cluster. */
  clusters: Array<{ name: string; path: string }>;
  /**
   * substituteFrom and valuesFrom ConfigMaps and Secrets that only the cluster holds (an
   * ExternalSecret or an operator creates them): `assume` renders them as present with
   * unknown values, `fail` fails their producer as Flux would. Absent: `assume`.
   */
  inClusterSources?: 'assume' | 'fail';
  /**
   * Ask each image's registry whether the tags and digests the PR brings in exist (a
   * manifest HEAD per image): the only part of a review that reaches a registry for
   * something other than a chart, so it is off unless the repository asks. Absent: off.
   */
  checkImages?: true;
  /**
   * How long an acknowledgement of failing findings (the check run's "Acknowledge findings")
   * lasts: `head`, only on the commit it was given on, so every push asks again; `carry`,
   * on later heads of the same PR while they fail with findings already acknowledged.
   * Absent: `head`.
   */
  acknowledgements?: 'head' | 'carry';
}

export const DEFAULT_POLICY: Policy = {
  levels: {},
  ignores: [],
  normalize: { labels: [], annotations: [], fields: [] },
  publicGateways: ['external', 'public'],
  failOn: 'danger',
  clusters: [],
};
