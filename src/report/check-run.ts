/**
 * The check-run output for a PR's head commit: conclusion, title, summary (verdict and
 * findings, what was not assessed, the errors that failed at base too folded last), text
 * (object diffs) and one annotation per finding with a source file.
 */
import {
  type AnalysisResult,
  type CheckRunAnnotation,
  type CheckRunConclusion,
  type CheckRunOutput,
  type FailOn,
  type Level,
  levelRank,
} from '../model/index.js';
import { gate } from '../risk/index.js';
import { acknowledgementSection, isAcknowledged } from './acknowledgement.js';
import { clipText, oneLine } from './clip-text.js';
import { displaySafe } from './display-text.js';
import { groupChanges } from './group-changes.js';
import { omissionFooter, renderMarkdownChanges, worstOmission } from './markdown-changes.js';
import { minimalMarkdown } from './markdown.js';
import { persistingSection } from './markdown-errors.js';
import { renderMarkdownSummary } from './markdown-summary.js';
import { levelLabel, resourceLabel } from './resource-label.js';

/** GitHub's limit on each of a check run's title, summary and text. */
export const CHECK_RUN_MAX_CHARS = 65535;
/** GitHub's limit on an annotation title. */
const MAX_ANNOTATION_TITLE = 255;
/** GitHub caps a message at 64 KB; a quarter of that in characters is safe in any encoding. */
const MAX_ANNOTATION_MESSAGE = 16_000;
const MAX_TITLE = 250;

/** Ours always have a title: the finding's level, rule and resource. */
type TitledAnnotation = CheckRunAnnotation & { title: string };

/** An analysis's check run: its conclusion and every part of its output. */
type RenderedCheckRun = Required<Omit<CheckRunOutput, 'annotations'>> & {
  conclusion: CheckRunConclusion;
  annotations: TitledAnnotation[];
};

const ANNOTATION_LEVEL: Record<Level, CheckRunAnnotation['annotation_level']> = {
  danger: 'failure',
  caution: 'warning',
  info: 'notice',
};

/**
 * failure: the gate fails (a finding at or above `failOn`, the same decision as the CLI's
 * exit code); neutral: a finding above info that does not fail, or a changed producer that
 * could not be rendered (unassessed: what was not looked at cannot pass), or a failing gate
 * whose findings someone with write access acknowledged; success otherwise.
 */
export function checkRunConclusion(result: AnalysisResult, failOn: FailOn): CheckRunConclusion {
  const { failed, highest } = gate(result.findings, failOn);
  if (failed) return isAcknowledged(result, failOn) ? 'neutral' : 'failure';
  if (unassessedCount(result) > 0) return 'neutral';
  return levelRank(highest) > levelRank('info') ? 'neutral' : 'success';
}

/** From the clusters, so that a result whose verdict lacks the count still tells. */
function unassessedCount(result: AnalysisResult): number {
  const listed = result.clusters.reduce((n, c) => n + (c.unassessed?.length ?? 0), 0);
  return Math.max(listed, result.verdict.unassessed ?? 0);
}

export function renderCheckRun(raw: AnalysisResult, failOn: FailOn): RenderedCheckRun {
  // Finding ids are of the findings as found, before display cleaning.
  const conclusion = checkRunConclusion(raw, failOn);
  const result = displaySafe(raw);
  const groups = groupChanges(result);
  const max = CHECK_RUN_MAX_CHARS;
  const link = omissionFooter({ objects: 0, producers: 0, cut: 0 }, result.reportUrl);
  const acknowledged = acknowledgementSection(result);
  const summaryBody =
    acknowledged +
    renderMarkdownSummary(result, {
      budget: max - link.length - acknowledged.length,
      listShare: 1 / 2,
    });
  const persisting = persistingSection(result, max - link.length - summaryBody.length);
  const summary = `${(summaryBody + persisting + link).trimEnd()}\n`;
  const reserve = omissionFooter(worstOmission(groups), result.reportUrl).length;
  const changes = renderMarkdownChanges(groups, max - reserve);
  const text =
    groups.length === 0
      ? 'No object changes.\n'
      : `${(changes.text + omissionFooter(changes.omitted, result.reportUrl)).trimEnd()}\n`;
  const headline = oneLine(result.verdict.headline);
  const title = clipText(
    `${levelLabel(result.verdict.level)}${headline === '' ? '' : `: ${headline}`}`,
    MAX_TITLE,
  );
  return {
    conclusion,
    title,
    summary: summary.length <= max ? summary : minimalMarkdown(result, max),
    text,
    annotations: findingAnnotations(result),
  };
}

/** One annotation per finding that names a file; line 1 when the line is unknown. */
export function findingAnnotations(result: AnalysisResult): TitledAnnotation[] {
  return result.findings.flatMap((finding) => {
    if (finding.file === undefined || finding.file === '') return [];
    const line = finding.line !== undefined && finding.line >= 1 ? Math.floor(finding.line) : 1;
    const title = `${levelLabel(finding.level)} ${finding.rule}: ${resourceLabel(finding.resource)}`;
    return [
      {
        path: finding.file,
        start_line: line,
        end_line: line,
        annotation_level: ANNOTATION_LEVEL[finding.level],
        title: clipText(oneLine(title), MAX_ANNOTATION_TITLE),
        message: clipText(finding.message, MAX_ANNOTATION_MESSAGE),
      },
    ];
  });
}
