/**
 * The parts of a stored result (the analysis JSON) the tools read, parsed at the door: a
 * result is data the worker wrote, but it may come from an older or newer fluxlens.
 */
import { z } from 'zod';

const Revision = z.object({ rev: z.string(), sha: z.string() });

const Resource = z.object({
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
});

export const FindingView = z.object({
  rule: z.string(),
  level: z.string(),
  cluster: z.string(),
  resource: Resource,
  message: z.string(),
  file: z.string().optional(),
  line: z.number().optional(),
});
export type FindingView = z.infer<typeof FindingView>;

const ChangeView = z.object({
  id: z.string(),
  status: z.string(),
  cluster: z.string(),
  kind: z.string(),
  namespace: z.string().optional(),
  name: z.string(),
  fields: z.array(z.object({ path: z.string(), change: z.string() })),
  diff: z.string(),
});
export type ChangeView = z.infer<typeof ChangeView>;

export const ResultView = z.object({
  base: Revision,
  head: Revision,
  verdict: z.object({
    level: z.string(),
    headline: z.string(),
    counts: z.record(z.string(), z.number()),
  }),
  summary: z.record(z.string(), z.number()),
  findings: z.array(FindingView),
  changes: z.array(ChangeView),
  reportUrl: z.string().optional(),
});
export type ResultView = z.infer<typeof ResultView>;

/** The change a finding is about: same cluster, kind, namespace and name. */
export function changeOf(result: ResultView, finding: FindingView): ChangeView | undefined {
  const { resource } = finding;
  return result.changes.find(
    (change) =>
      change.cluster === finding.cluster &&
      change.kind === resource.kind &&
      change.name === resource.name &&
      (change.namespace ?? '') === (resource.namespace ?? ''),
  );
}
