/**
 * `fluxlens action`: the step of the GitHub Action (action.yml). It runs diff's analysis
 * between the event's base and head, appends the report to the job summary, upserts the
 * sticky comment, writes the step's outputs, and exits as diff does: 1 when a finding
 * reaches failOn, 0 otherwise, 2 on errors (with the outputs `verdict` error and `failed`
 * true, so that steps after it can tell).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorMessage, SetupError } from '../errors.js';
import type { AnalysisResult, FailOn } from '../model/index.js';
import { renderJson } from '../report/index.js';
import { gate } from '../risk/index.js';
import { upsertComment } from './action-comment.js';
import { outputFileOf, readActionContext, type ActionContext } from './action-context.js';
import {
  appendSummary,
  markdownWithinBytes,
  warningCommand,
  writeOutputs,
} from './action-files.js';
import { analyzeCheckout, parseDiffArgs } from './diff-command.js';
import { parseFlags } from './parse-flags.js';
import type { CliIO } from './io.js';
import { usageOf } from './usage.js';

/** The report file has no size limit of GitHub's; this only bounds a pathological one. */
const REPORT_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** The outputs the step writes, in action.yml's words. */
export const ACTION_OUTPUTS = [
  'verdict',
  'failed',
  'added',
  'removed',
  'changed',
  'moved',
  'findings',
  'danger',
  'caution',
  'info',
  'unassessed',
  'report-json',
  'report-markdown',
] as const;

export async function actionCommand(args: string[], io: CliIO): Promise<number> {
  if (parseFlags(args, { help: { type: 'boolean', short: 'h', default: false } }).help) {
    io.stdout(usageOf('action'));
    return 0;
  }
  const written = { outputs: false };
  try {
    return await review(io, written);
  } catch (err) {
    // Later steps read the outputs even when the review did not run (`if: always()`).
    const file = outputFileOf(io.env);
    if (!written.outputs && file !== undefined) {
      await writeOutputs(file, { verdict: 'error', failed: 'true' }).catch(() => {});
    }
    throw err;
  }
}

async function review(io: CliIO, written: { outputs: boolean }): Promise<number> {
  const ctx = await readActionContext(io.env);
  const { result, failOn } = await analyzeCheckout(diffFlags(ctx), io);
  const gateResult = gate(result.findings, ctx.failOn ?? failOn);
  io.stdout(`fluxlens: ${verdictLine(result, ctx.failOn ?? failOn, gateResult.failed)}\n`);
  const files = await writeReportFiles(result, ctx);
  if (ctx.summaryFile !== undefined && !(await appendSummary(ctx.summaryFile, result))) {
    io.stdout(warningCommand('the job summary is full; the report is not added to it'));
  }
  if (ctx.outputFile !== undefined) {
    await writeOutputs(ctx.outputFile, outputs(result, gateResult.failed, files));
    written.outputs = true;
  }
  // Last: the summary and the outputs stand even when GitHub fails us here.
  if (ctx.comment) {
    const comment = await upsertComment(ctx, result, io.stderr);
    if (!comment.written) io.stdout(warningCommand(comment.warning));
  }
  return gateResult.failed ? 1 : 0;
}

/** diff's flags for the event: the merge-base of the event's base and its head. */
function diffFlags(ctx: ActionContext) {
  return parseDiffArgs([
    `--repo=${ctx.workspace}`,
    `--base=${ctx.baseSha}`,
    `--head=${ctx.headSha}`,
    `--engine=${ctx.engine}`,
    ...ctx.paths.map((p) => `--path=${p}`),
  ]);
}

/**
 * One line for the log: level, counts and what fails. Built from numbers and words of
 * ours only, so nothing from the repository can pass for a workflow command.
 */
function verdictLine(result: AnalysisResult, failOn: FailOn, failed: boolean): string {
  const { level, counts } = result.verdict;
  const s = result.summary;
  const gateWords = failOn === 'never' ? 'never fails' : `fails on ${failOn}`;
  return (
    `verdict ${level}: ${s.added} added, ${s.changed} changed, ${s.removed} removed, ` +
    `${s.moved} moved; findings ${counts.danger} danger, ${counts.caution} caution, ` +
    `${counts.info} info; the gate ${gateWords}: ${failed ? 'failed' : 'passed'}`
  );
}

async function writeReportFiles(
  result: AnalysisResult,
  ctx: ActionContext,
): Promise<{ json: string; markdown: string }> {
  try {
    const dir = await mkdtemp(join(ctx.tempDir ?? tmpdir(), 'fluxlens-'));
    const json = join(dir, 'report.json');
    const markdown = join(dir, 'report.md');
    await writeFile(json, renderJson(result));
    await writeFile(markdown, markdownWithinBytes(result, REPORT_FILE_MAX_BYTES));
    return { json, markdown };
  } catch (err) {
    throw new SetupError(`cannot write the report files: ${errorMessage(err)}`, { cause: err });
  }
}

function outputs(
  result: AnalysisResult,
  failed: boolean,
  files: { json: string; markdown: string },
): Record<(typeof ACTION_OUTPUTS)[number], string> {
  const { verdict, summary } = result;
  return {
    verdict: verdict.level,
    failed: String(failed),
    added: String(summary.added),
    removed: String(summary.removed),
    changed: String(summary.changed),
    moved: String(summary.moved),
    findings: String(summary.findings),
    danger: String(verdict.counts.danger),
    caution: String(verdict.counts.caution),
    info: String(verdict.counts.info),
    unassessed: String(verdict.unassessed ?? 0),
    'report-json': files.json,
    'report-markdown': files.markdown,
  };
}
