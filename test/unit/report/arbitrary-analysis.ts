/**
 * fast-check generator of whole analyses at realistic and hostile sizes: up to thousands
 * of changes with diffs of thousands of lines, long messages, and names full of Markdown
 * metacharacters. Big lists are built from a few generated templates so that generating
 * a run stays cheap while the renderers still see every size; render errors that fail at
 * both revisions come the same way, a few causes in up to thousands of producers.
 */
import fc from 'fast-check';
import type { AnalysisResult } from '../../../src/model/analysis.js';
import type {
  ChangeStatus,
  ChartChange,
  ImageChange,
  ResourceChange,
} from '../../../src/model/change.js';
import type { ProducerRef, RenderError } from '../../../src/model/render.js';
import type { Finding, Level } from '../../../src/model/finding.js';
import { analysis, clusterSummary } from './analysis-builders.js';

const NAME_CHARS = [...'abcxyz019-._`|<>*[]&\\#~@ '];

/** A Kubernetes-ish name with Markdown metacharacters mixed in. */
export const nameArb = fc
  .array(fc.constantFrom(...NAME_CHARS), { minLength: 1, maxLength: 40 })
  .map((chars) => chars.join(''));

const WORDS = [
  'deletes',
  'the',
  'PVC',
  '`data`',
  'a|b',
  '<script>',
  '**bold**',
  '_x_',
  '[link](y)',
  '&amp;',
];

/** One line of words (single spaces, no edge whitespace): how a rule writes a message. */
export const messageArb = (maxWords: number) =>
  fc
    .array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ minLength: 1, maxLength: 12 })), {
      minLength: 1,
      maxLength: maxWords,
    })
    .map((words) => words.join(' ').replace(/\s+/g, ' ').trim() || 'message');

const diffLineArb = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.constantFrom('```', '````diff', '</details>', '<details open>', '~~~', ''),
  },
  { weight: 6, arbitrary: fc.string({ maxLength: 120 }) },
  { weight: 1, arbitrary: fc.string({ minLength: 1000, maxLength: 3000 }) },
);

/** A unified diff: a few generated lines, repeated up to 100 times. */
const diffArb = fc
  .record({
    lines: fc.array(fc.tuple(fc.constantFrom(' ', '+', '-'), diffLineArb), { maxLength: 30 }),
    repeat: fc.integer({ min: 1, max: 100 }),
  })
  .map(({ lines, repeat }) => {
    if (lines.length === 0) return '';
    const body = lines.map(([prefix, line]) => `${prefix}${line}\n`).join('');
    return `--- a\n+++ b\n@@ -1,${lines.length} +1,${lines.length} @@\n${body.repeat(repeat)}`;
  });

const producerArb: fc.Arbitrary<ProducerRef> = fc.record({
  kind: fc.constantFrom('Kustomization' as const, 'HelmRelease' as const),
  namespace: nameArb,
  name: nameArb,
});

const templateArb = fc.record({
  status: fc.constantFrom<ChangeStatus>('added', 'removed', 'changed', 'moved'),
  kind: fc.constantFrom('Deployment', 'PersistentVolumeClaim', 'Service', 'Secret', 'ConfigMap'),
  name: nameArb,
  file: fc.option(nameArb, { nil: undefined }),
  diff: diffArb,
});

function findingArb(levels: Level[], clusters: string[], maxWords: number): fc.Arbitrary<Finding> {
  return fc
    .record({
      rule: fc.constantFrom('pvc-delete', 'public-exposure', 'image-latest'),
      level: fc.constantFrom(...levels),
      cluster: fc.constantFrom(...clusters),
      kind: fc.constantFrom('Deployment', 'PersistentVolumeClaim'),
      name: nameArb,
      message: messageArb(maxWords),
      file: fc.option(nameArb, { nil: undefined }),
      line: fc.option(fc.integer({ min: 1, max: 5000 }), { nil: undefined }),
    })
    .map(({ kind, name, file, line, ...rest }) => ({
      ...rest,
      resource: { kind, namespace: 'apps', name },
      ...(file === undefined ? {} : { file }),
      ...(line === undefined ? {} : { line }),
    }));
}

const errorArb: fc.Arbitrary<RenderError> = fc.record({
  producer: producerArb,
  message: fc.oneof(messageArb(40), fc.string({ maxLength: 3000 })),
});

/** A render error with or without a code, as a producer failing at both revisions has it. */
const codedErrorArb: fc.Arbitrary<RenderError> = fc
  .record({
    error: errorArb,
    code: fc.option(fc.constantFrom('chart-unavailable' as const, 'remote-base-refused' as const), {
      nil: undefined,
    }),
    host: nameArb,
  })
  .map(({ error, code, host }) =>
    code === undefined
      ? error
      : { ...error, code, message: `${error.message} oci://${host}/charts/x` },
  );

const unassessedArb = fc.record({
  side: fc.constantFrom('base' as const, 'head' as const, 'both' as const),
  reason: fc.constantFrom('chart unavailable', 'render error', 'source not mapped (--source)'),
});

const imageArb: fc.Arbitrary<ImageChange> = fc
  .record({
    repository: nameArb,
    from: fc.option(nameArb, { nil: undefined }),
    to: fc.option(nameArb, { nil: undefined }),
  })
  .map(({ repository, from, to }) => ({
    repository,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  }));

const chartArb: fc.Arbitrary<ChartChange> = fc
  .record({
    chart: nameArb,
    source: nameArb,
    from: fc.option(nameArb, { nil: undefined }),
    to: fc.option(nameArb, { nil: undefined }),
    producers: fc.uniqueArray(nameArb, { maxLength: 60 }),
  })
  .map(({ from, to, ...rest }) => ({
    ...rest,
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  }));

export interface AnalysisShape {
  /** Most changes a run can have. */
  maxChanges: number;
  /** Most danger findings; each is kept whole, so together they must fit one comment. */
  maxDanger: number;
  maxOtherFindings: number;
}

export function analysisArb(shape: AnalysisShape): fc.Arbitrary<AnalysisResult> {
  return fc
    .record({
      clusters: fc.uniqueArray(nameArb, { minLength: 1, maxLength: 3 }),
      producers: fc.array(producerArb, { minLength: 1, maxLength: 40 }),
      templates: fc.array(templateArb, { minLength: 1, maxLength: 12 }),
      count: fc.integer({ min: 0, max: shape.maxChanges }),
      headline: messageArb(20),
      reportUrl: fc.option(fc.constant('https://fluxlens.example/r/1?a=b c<d>'), {
        nil: undefined,
      }),
      images: fc.array(imageArb, { maxLength: 200, size: 'max' }),
      charts: fc.array(chartArb, { maxLength: 100, size: 'max' }),
      introduced: fc.array(errorArb, { maxLength: 30 }),
      fixed: fc.array(errorArb, { maxLength: 30 }),
      // Templates, each failing in many producers: the folded lists at every size.
      persisting: fc.array(
        fc.record({ error: codedErrorArb, copies: fc.integer({ min: 1, max: 80 }) }),
        { maxLength: 12 },
      ),
      unassessed: fc.array(unassessedArb, { maxLength: 5 }),
      unread: fc.array(nameArb, { maxLength: 300 }),
      excluded: fc.array(fc.record({ path: nameArb, pattern: nameArb, from: messageArb(6) }), {
        maxLength: 100,
      }),
      bootstrap: fc.option(fc.constantFrom('base' as const, 'head' as const, 'both' as const), {
        nil: undefined,
      }),
    })
    .chain((base) =>
      fc.record({
        base: fc.constant(base),
        danger: fc.array(findingArb(['danger'], base.clusters, 30), { maxLength: shape.maxDanger }),
        others: fc.array(findingArb(['caution', 'info'], base.clusters, 60), {
          maxLength: shape.maxOtherFindings,
          size: 'max',
        }),
      }),
    )
    .map(({ base, danger, others }) => {
      const changes: ResourceChange[] = [];
      for (let i = 0; i < base.count; i += 1) {
        const t = base.templates[i % base.templates.length]!;
        const producer = base.producers[(i * 7) % base.producers.length]!;
        const cluster = base.clusters[i % base.clusters.length]!;
        changes.push({
          id: `/${t.kind}/apps/${t.name}-${i}`,
          status: t.status,
          contentChanged: t.diff !== '',
          cluster,
          apiVersion: 'v1',
          kind: t.kind,
          namespace: 'apps',
          name: `${t.name}-${i}`,
          producer,
          ...(t.status === 'moved' ? { previousProducer: base.producers[0]! } : {}),
          ...(t.file === undefined ? {} : { file: t.file }),
          fields: [],
          diff: t.diff,
        });
      }
      // Tie some findings to generated objects so producers carry risk levels.
      const findings = [...danger, ...others].map((f, i) => {
        const target = changes[(i * 13) % Math.max(1, changes.length)];
        if (!target || i % 2 === 1) return f;
        return {
          ...f,
          cluster: target.cluster,
          resource: { kind: target.kind, namespace: 'apps', name: target.name },
        };
      });
      const cluster = base.clusters[0]!;
      const persisting = base.persisting.flatMap(({ error, copies }, t) =>
        Array.from({ length: copies }, (_, i) => ({
          ...error,
          producer: { ...error.producer, name: `${error.producer.name}-${t}-${i}` },
        })),
      );
      const errors = persisting.flatMap((error) =>
        (['base', 'head'] as const).map((side) => ({ ...error, cluster, side, introduced: false })),
      );
      // Every failing producer is one the PR changes when the run has unassessed templates.
      const unassessed = base.unassessed.flatMap((template, t) =>
        persisting
          .filter((_, i) => i % base.unassessed.length === t)
          .map((error) => ({ producer: error.producer, ...template })),
      );
      const clusters = base.clusters.map((name, i) =>
        clusterSummary({
          name,
          path: name,
          images: i === 0 ? base.images : [],
          charts: i === 0 ? base.charts : [],
          errorsIntroduced: i === 0 ? base.introduced : [],
          errorsFixed: i === 0 ? base.fixed : [],
          unassessed: i === 0 ? unassessed : [],
          ...(i === 0 && base.bootstrap ? { bootstrapAssumed: base.bootstrap } : {}),
        }),
      );
      const files = { read: [], excluded: base.excluded, unread: base.unread };
      const result = analysis({ changes, findings, clusters, errors, files });
      result.verdict.headline = base.headline;
      if (base.reportUrl !== undefined) result.reportUrl = base.reportUrl;
      return result;
    });
}
