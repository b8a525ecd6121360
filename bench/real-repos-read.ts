/**
 * What the real-repository benchmark reads back from each tool, as plain data: fluxlens's
 * JSON report (parsed with a schema of the fields used here) and flate's HTML diff and
 * stderr. Pure functions of their input, so test/unit/bench-real-repos.test.ts checks them
 * on recorded output without mirrors, tools or network.
 */
import { z } from 'zod';

const Level = z.enum(['info', 'caution', 'danger']);
const ProducerRef = z.object({ kind: z.string(), namespace: z.string(), name: z.string() });
type ProducerRef = z.infer<typeof ProducerRef>;

/** The part of fluxlens's `--format json` report (an AnalysisResult) this benchmark reads. */
const FluxlensReport = z.object({
  verdict: z.object({
    level: z.enum(['none', 'info', 'caution', 'danger']),
    headline: z.string(),
    routine: z.boolean(),
  }),
  summary: z.object({
    added: z.number(),
    removed: z.number(),
    changed: z.number(),
    moved: z.number(),
  }),
  clusters: z.array(
    z.object({
      name: z.string(),
      unassessed: z
        .array(z.object({ producer: ProducerRef, side: z.string(), reason: z.string() }))
        .optional(),
      charts: z
        .array(
          z.object({
            chart: z.string(),
            source: z.string(),
            from: z.string().optional(),
            to: z.string().optional(),
            producers: z.array(z.string()),
          }),
        )
        .optional(),
    }),
  ),
  changes: z.array(
    z.object({
      status: z.enum(['added', 'removed', 'changed', 'moved']),
      kind: z.string(),
      namespace: z.string().optional(),
      name: z.string(),
      producer: ProducerRef,
      previousProducer: ProducerRef.optional(),
      fields: z.array(z.object({ path: z.string() })),
    }),
  ),
  findings: z.array(z.object({ rule: z.string(), level: Level, producer: ProducerRef.optional() })),
  errors: z.array(
    z.object({
      producer: ProducerRef,
      message: z.string(),
      side: z.enum(['base', 'head']),
      introduced: z.boolean(),
    }),
  ),
});
type FluxlensReport = z.infer<typeof FluxlensReport>;

export type ErrorCode = 'chart-unavailable' | 'applied-twice' | 'content';

export interface ChartRow {
  chart: string;
  from?: string | undefined;
  to?: string | undefined;
  producers: string[];
}

/** One fluxlens run, reduced to what the table and the acceptance checks need. */
export interface FluxlensSummary {
  verdict: { level: string; headline: string; routine: boolean };
  counts: { added: number; changed: number; removed: number; moved: number };
  /** Findings per level, and per `level rule-id`. */
  findings: Record<string, number>;
  findingRules: Record<string, number>;
  unassessed: string[];
  /** Absent when the report has no `clusters[].charts` field. */
  charts?: ChartRow[];
  /** Render errors per `side code`, e.g. `head chart-unavailable`. */
  errors: Record<string, number>;
  /** Content errors introduced at head, `Kind/ns/name: message` (bounded). */
  introducedContentErrors: string[];
  /** Producers with a change that flate would show too (no Secrets, no CRDs), sorted. */
  changedProducers: string[];
  /** The acceptance checks' evidence; see real-repos-checks.ts. */
  evidence: {
    dangerFromUnavailable: string[];
    /**
     * Releases whose chart could not be fetched and whose chart the PR changed (their chart
     * source object changed, or `charts[]` names them), yet are not in `unassessed`: the
     * PR changes what they render, and nobody saw it.
     */
    unrenderedChartMoves: string[];
    chartVersionChanges: number;
    otherChanges: number;
  };
}

const producerKey = (p: ProducerRef) => `${p.kind}/${p.namespace}/${p.name}`;

/** The error's cause, from its message: the JSON report keeps the code only in the words. */
export function errorCode(message: string): ErrorCode {
  if (message.startsWith('chart unavailable:')) return 'chart-unavailable';
  if (/ is also applied by /.test(message)) return 'applied-twice';
  return 'content';
}

const count = (into: Record<string, number>, key: string) => {
  into[key] = (into[key] ?? 0) + 1;
};

/** Kinds flate leaves out of its diffs by default (--skip-secrets, --skip-crds). */
const FLATE_SKIPS = new Set(['Secret', 'CustomResourceDefinition']);

/** A field path that moves a chart version: OCIRepository refs, HelmChart and chart specs. */
const CHART_VERSION = /^spec\.(ref(\.|$)|version$|chart\.spec\.version$)/;

function chartVersionChange(change: FluxlensReport['changes'][number]): boolean {
  const chartKinds = ['OCIRepository', 'HelmChart', 'HelmRelease'];
  return (
    change.status === 'changed' &&
    chartKinds.includes(change.kind) &&
    change.fields.length > 0 &&
    change.fields.every((f) => CHART_VERSION.test(f.path))
  );
}

/** The chart source a chart-unavailable message names: `... from OCIRepository/ns/name: ...`. */
const CHART_SOURCE = /\bfrom ((?:OCIRepository|HelmRepository|HelmChart)\/[^/\s]+\/[^\s:]+)/;
const CHART_SOURCE_KINDS = new Set(['OCIRepository', 'HelmRepository', 'HelmChart']);

function readErrors(report: FluxlensReport) {
  const errors: Record<string, number> = {};
  const introducedContentErrors: string[] = [];
  const unavailable = { head: new Set<string>(), either: new Set<string>() };
  /** Producer key to the chart sources its unavailable errors name. */
  const sources = new Map<string, Set<string>>();
  for (const e of report.errors) {
    const code = errorCode(e.message);
    count(errors, `${e.side} ${code}`);
    if (code === 'chart-unavailable') {
      const key = producerKey(e.producer);
      unavailable.either.add(key);
      if (e.side === 'head') unavailable.head.add(key);
      const source = CHART_SOURCE.exec(e.message)?.[1];
      if (source !== undefined) sources.set(key, (sources.get(key) ?? new Set()).add(source));
    }
    if (e.introduced && code === 'content' && introducedContentErrors.length < 10)
      introducedContentErrors.push(`${producerKey(e.producer)}: ${e.message.slice(0, 200)}`);
  }
  return { errors, introducedContentErrors, unavailable, sources };
}

function readChanges(report: FluxlensReport) {
  const changed = new Set<string>();
  const changedSources = new Set<string>();
  let chartVersionChanges = 0;
  let otherChanges = 0;
  for (const c of report.changes) {
    if (CHART_SOURCE_KINDS.has(c.kind)) changedSources.add(`${c.kind}/${c.namespace}/${c.name}`);
    if (!FLATE_SKIPS.has(c.kind)) {
      changed.add(producerKey(c.producer));
      if (c.previousProducer) changed.add(producerKey(c.previousProducer));
    }
    if (chartVersionChange(c)) chartVersionChanges += 1;
    // Objects a chart renders change with its version; anything else is another change.
    else if (c.producer.kind !== 'HelmRelease') otherChanges += 1;
  }
  return {
    changedProducers: [...changed].sort(),
    changedSources,
    chartVersionChanges,
    otherChanges,
  };
}

export function summarizeFluxlens(json: unknown): FluxlensSummary {
  const report = FluxlensReport.parse(json);
  const findings: Record<string, number> = {};
  const findingRules: Record<string, number> = {};
  for (const f of report.findings) {
    count(findings, f.level);
    count(findingRules, `${f.level} ${f.rule}`);
  }
  const { errors, introducedContentErrors, unavailable, sources } = readErrors(report);
  const { changedProducers, changedSources, chartVersionChanges, otherChanges } =
    readChanges(report);
  const unassessed = report.clusters.flatMap((c) => c.unassessed ?? []);
  const unassessedKeys = new Set(unassessed.map((u) => producerKey(u.producer)));
  const hasCharts = report.clusters.some((c) => c.charts !== undefined);
  const charts = report.clusters.flatMap((c) => c.charts ?? []);
  const sourceMoved = [...sources]
    .filter(([, names]) => [...names].some((n) => changedSources.has(n)))
    .map(([key]) => key);
  const unrendered = [...charts.flatMap((c) => c.producers), ...sourceMoved].filter(
    (p) => unavailable.either.has(p) && !unassessedKeys.has(p),
  );
  return {
    verdict: report.verdict,
    counts: report.summary,
    findings,
    findingRules,
    unassessed: unassessed.map((u) => `${producerKey(u.producer)} (${u.side}: ${u.reason})`),
    ...(hasCharts ? { charts } : {}),
    errors,
    introducedContentErrors,
    changedProducers,
    evidence: {
      dangerFromUnavailable: report.findings
        .filter(
          (f) =>
            f.level === 'danger' &&
            f.rule === 'render-error-introduced' &&
            f.producer !== undefined &&
            unavailable.head.has(producerKey(f.producer)),
        )
        .map((f) => producerKey(f.producer as ProducerRef)),
      unrenderedChartMoves: [...new Set(unrendered)].sort(),
      chartVersionChanges,
      otherChanges,
    },
  };
}

/** flate's changed-only diff, from its `-o html` page and its stderr. */
export interface FlateSummary {
  counts: { added: number; changed: number; removed: number };
  /** Producer groups of the page: `Kind/ns/name` with the spec.path flate shows beside it. */
  groups: Array<{ producer: string; path: string; objects: number }>;
  changedProducers: string[];
  /** Reconcile failures per `side cause`: side orig|current, cause unavailable|other. */
  failures: Record<string, number>;
  otherFailures: string[];
}

const unescape = (text: string) =>
  text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** Network, DNS, timeouts and refused credentials: what this machine cannot reach. */
const UNREACHABLE =
  /no such host|dial tcp|connection refused|i\/o timeout|context deadline exceeded|\b40[13]\b|unauthorized|denied/i;

export function summarizeFlate(html: string, stderr: string): FlateSummary {
  const number = (status: string) =>
    Number(new RegExp(`>(\\d+) ${status}</button>`).exec(html)?.[1] ?? 0);
  const groups: FlateSummary['groups'] = [];
  const parents = html.split('<details class="tree-parent"').slice(1);
  for (const part of parents) {
    const summary = /<summary>([^<]*)<\/summary>/.exec(part)?.[1];
    const match =
      summary && /^(\w+) ([^/\s]+)\/(\S+)(?: \((.*)\))?$/.exec(unescape(summary).trim());
    if (!match) continue;
    const objects = (part.match(/class="tree-leaf"/g) ?? []).length;
    groups.push({ producer: `${match[1]}/${match[2]}/${match[3]}`, path: match[4] ?? '', objects });
  }
  const failures: Record<string, number> = {};
  const otherFailures: string[] = [];
  let side: string | undefined;
  for (const line of stderr.split('\n')) {
    const head = /^(orig|current) snapshot: reconcile completed with/.exec(line);
    if (head) {
      side = head[1];
      continue;
    }
    const item = /^ {2}(\w+\/\S+): (.*)$/.exec(line);
    if (!item || side === undefined) continue;
    const cause = UNREACHABLE.test(item[2] ?? '') ? 'unavailable' : 'other';
    count(failures, `${side} ${cause}`);
    if (cause === 'other' && otherFailures.length < 10)
      otherFailures.push(`${side}: ${item[1]}: ${(item[2] ?? '').slice(0, 200)}`);
  }
  return {
    counts: { added: number('added'), changed: number('changed'), removed: number('removed') },
    groups,
    changedProducers: [...new Set(groups.map((g) => g.producer))].sort(),
    failures,
    otherFailures,
  };
}
