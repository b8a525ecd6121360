/**
 * The real-repository run as Markdown (two tables, then what each case showed, with the
 * judgement the cases file holds) and as JSON, both formatted by the repository's prettier
 * settings since they are committed. The Markdown is a function of the JSON and the cases
 * file, so `--report` rewrites it after the judgements are written, without a new run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { Check } from './real-repos-checks.js';
import { caseId, type Case, type CaseResult } from './real-repos-run.js';

export interface Results {
  startedAt: string;
  finishedAt: string;
  machine: { nproc: number; loadStart: number[]; loadEnd: number[] };
  versions: Record<string, string>;
  fluxlens: { commit: string; uncommittedChanges: boolean; launcher: string };
  cases: CaseResult[];
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const mark: Record<Check['status'], string> = {
  pass: 'pass',
  fail: '**FAIL**',
  'n/a': 'n/a',
  differs: 'differs',
};

function tally(counts: Record<string, number>, keys: string[]): string {
  return keys.map((k) => counts[k] ?? 0).join('/');
}

function errorsCell(errors: Record<string, number>): string {
  const codes = [...new Set(Object.keys(errors).map((k) => k.split(' ')[1] ?? ''))].sort();
  if (codes.length === 0) return 'none';
  return codes.map((c) => `${c} ${tally(errors, [`base ${c}`, `head ${c}`])}`).join(', ');
}

function link(c: Case): string {
  return `[${caseId(c)}](https://github.com/${c.repo}/pull/${c.pr})`;
}

function fluxlensRow(c: Case, r: CaseResult): string {
  const s = r.fluxlens.summary;
  if (!s) return `| ${link(c)} | ${c.kind} | did not run | | | | | | | | | |`;
  const k = r.checks;
  const cells = [
    link(c),
    c.kind,
    `${s.verdict.level}${s.verdict.routine ? ', routine' : ''}`,
    `${s.counts.added}/${s.counts.changed}/${s.counts.removed}/${s.counts.moved}`,
    tally(s.findings, ['info', 'caution', 'danger']),
    String(s.unassessed.length),
    s.charts === undefined ? 'n/a' : String(s.charts.length),
    errorsCell(s.errors),
    String(r.fluxlens.skipped?.length ?? '?'),
    ...(k ? [k.unassessed, k.unreachable, k.charts].map((x) => mark[x.status]) : ['', '', '']),
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function flateRow(c: Case, r: CaseResult): string {
  const f = r.flate.summary;
  const ours = r.fluxlens.summary?.changedProducers.filter((p) => p.startsWith('Kustomization/'));
  const theirs = f?.changedProducers.filter((p) => p.startsWith('Kustomization/'));
  const cells = [
    link(c),
    f ? `${f.counts.added}/${f.counts.changed}/${f.counts.removed}` : 'did not run',
    f ? tally(f.failures, ['orig unavailable', 'current unavailable']) : '',
    f ? tally(f.failures, ['orig other', 'current other']) : '',
    String(ours?.length ?? ''),
    String(theirs?.length ?? ''),
    r.checks ? mark[r.checks.agreement.status] : '',
    seconds(r.fluxlens.run.ms),
    seconds(r.flate.run.ms),
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

function details(c: Case, r: CaseResult): string[] {
  const lines = [`### ${caseId(c)}: ${c.title}`, ''];
  const s = r.fluxlens.summary;
  if (r.fluxlens.run.error) lines.push(`fluxlens failed: \`${cell(r.fluxlens.run.error)}\``, '');
  if (r.flate.run.error) lines.push(`flate failed: \`${cell(r.flate.run.error)}\``, '');
  if (s) {
    lines.push(`- fluxlens: ${s.verdict.headline}`);
    const rules = Object.entries(s.findingRules).map(([k, n]) => `${k} ×${n}`);
    if (rules.length > 0) lines.push(`- findings: ${rules.join(', ')}`);
    if (s.unassessed.length > 0) lines.push(`- unassessed: ${s.unassessed.join('; ')}`);
    const silent = s.evidence.unrenderedChartMoves;
    if (silent.length > 0)
      lines.push(`- chart changed, never fetched, not in unassessed: ${silent.join(', ')}`);
    for (const ch of s.charts ?? [])
      lines.push(
        `- chart ${ch.chart}: ${ch.from ?? '(new)'} → ${ch.to ?? '(gone)'} (${ch.producers.join(', ')})`,
      );
    if (s.introducedContentErrors.length > 0)
      lines.push(`- render errors introduced: ${s.introducedContentErrors.join('; ')}`);
  }
  const skipped = r.fluxlens.skipped ?? [];
  if (skipped.length > 0)
    lines.push(
      `- skipped by fluxlens at head: ${skipped.length} (${skipped.slice(0, 3).join('; ')}${skipped.length > 3 ? '; …' : ''})`,
    );
  const other = r.flate.summary?.otherFailures ?? [];
  if (other.length > 0) lines.push(`- flate failures not about the network: ${other.join('; ')}`);
  for (const check of r.checks ? Object.values(r.checks) : [])
    if (check.status === 'fail') lines.push(`- **check failed**: ${check.detail}`);
  const agreement = r.checks?.agreement;
  if (agreement?.status === 'differs') {
    lines.push(`- changed Kustomizations: ${agreement.detail}`);
    if (agreement.onlyFluxlens.length > 0)
      lines.push(`  - only fluxlens: ${agreement.onlyFluxlens.join(', ')}`);
    if (agreement.onlyFlate.length > 0)
      lines.push(`  - only flate: ${agreement.onlyFlate.join(', ')}`);
  }
  if (c.note !== '') lines.push('', c.note);
  return [...lines, ''];
}

export function renderMarkdown(results: Results, cases: readonly Case[]): string {
  const byId = new Map(results.cases.map((r) => [r.id, r]));
  const pairs = cases.flatMap((c) => {
    const r = byId.get(caseId(c));
    return r ? [[c, r] as const] : [];
  });
  const { machine, fluxlens } = results;
  return [
    '# fluxlens and flate on real pull requests',
    '',
    `${results.startedAt} to ${results.finishedAt}; ${machine.nproc} CPUs, load average ` +
      `${machine.loadStart.join(' / ')} at the start and ${machine.loadEnd.join(' / ')} at the end. ` +
      `fluxlens ${fluxlens.commit.slice(0, 12)}${fluxlens.uncommittedChanges ? ' with uncommitted changes' : ''} ` +
      `(${fluxlens.launcher}); ${Object.entries(results.versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
    '',
    '## fluxlens',
    '',
    'Objects added/changed/removed/moved; findings info/caution/danger; render errors base/head by cause; ' +
      'producers skipped at head. Checks: (a) no `none` or routine verdict while a changed producer is ' +
      'unassessed, (b) no danger from an unreachable chart, (c) chart version moves listed, and routine ' +
      'unless something else explains why not.',
    '',
    '| Case | Kind | Verdict | Objects | Findings | Unassessed | Chart moves | Render errors | Skipped | (a) | (b) | (c) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...pairs.map(([c, r]) => fluxlensRow(c, r)),
    '',
    '## Against flate',
    '',
    "flate's objects added/changed/removed (Secrets and CRDs left out, its defaults); its reconcile " +
      'failures orig/current, unreachable and other; changed Kustomizations each tool names; (d) whether ' +
      'those agree; wall time of each tool, caches warm from earlier cases of the same repository.',
    '',
    '| Case | flate objects | flate unreachable | flate other failures | fluxlens Ks | flate Ks | (d) | fluxlens | flate |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...pairs.map(([c, r]) => flateRow(c, r)),
    '',
    '## Cases',
    '',
    ...pairs.flatMap(([c, r]) => details(c, r)),
  ].join('\n');
}

/** Both files, formatted as the repository's prettier settings say. */
export async function writeResults(
  dir: string,
  results: Results,
  cases: readonly Case[],
): Promise<{ markdown: string; json: string }> {
  mkdirSync(dir, { recursive: true });
  const markdown = join(dir, 'real-repos.md');
  const json = join(dir, 'real-repos.json');
  const write = async (file: string, text: string) => {
    const options = (await prettier.resolveConfig(file)) ?? {};
    writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  };
  await write(markdown, renderMarkdown(results, cases));
  await write(json, JSON.stringify(results));
  return { markdown, json };
}
