/** The run as Markdown (a table per subject and scenario, then the targets) and as JSON. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import type { Machine } from './machine.js';
import type { Row } from './run-scenario.js';
import { SCENARIO_TITLES, SCENARIOS } from './scenarios.js';
import type { Subject } from './subjects.js';
import type { Target } from './targets.js';

export interface Results {
  startedAt: string;
  finishedAt: string;
  options: Record<string, unknown>;
  machine: Machine;
  subjects: Array<{ name: string; entry: string; facts: Subject['facts'] }>;
  rows: Row[];
  targets: Target[];
}

const MIB = 2 ** 20;
const seconds = (ms: number) =>
  ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 1000).toFixed(2)} s`;

/** Both files, formatted as the repository's prettier settings say (they are committed). */
export async function writeResults(
  dir: string,
  results: Results,
): Promise<{ markdown: string; json: string }> {
  mkdirSync(dir, { recursive: true });
  const markdown = join(dir, 'latest.md');
  const json = join(dir, 'latest.json');
  const write = async (file: string, text: string) => {
    const options = (await prettier.resolveConfig(file)) ?? {};
    writeFileSync(file, await prettier.format(text, { ...options, filepath: file }));
  };
  await write(markdown, renderMarkdown(results));
  await write(json, JSON.stringify(results));
  return { markdown, json };
}

export function renderMarkdown(results: Results): string {
  const { machine } = results;
  const lines = [
    '# fluxlens render benchmark',
    '',
    `${results.startedAt} to ${results.finishedAt}. ${machine.nproc} CPUs (${machine.cpu}), ` +
      `${(machine.memoryBytes / 2 ** 30).toFixed(1)} GiB; load average ${machine.loadStart.join(' / ')} at the start, ` +
      `${(machine.loadEnd ?? []).join(' / ')} at the end (1, 5, 15 min).`,
    '',
    `fluxlens ${machine.fluxlens.commit.slice(0, 12)}${machine.fluxlens.uncommittedChanges ? ' with uncommitted changes' : ''}, ` +
      `run as ${machine.fluxlens.launcher}. ${Object.entries(machine.versions)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}.`,
    '',
    `Options: ${Object.entries(results.options)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(', ')}.`,
    '',
    '## Targets',
    '',
    '| Target | Figures | Verdict |',
    '| --- | --- | --- |',
    ...results.targets.map((t) => `| ${t.statement} | ${t.figures} | **${t.verdict}** |`),
  ];
  for (const subject of results.subjects) {
    lines.push(
      '',
      `## ${subject.name}`,
      '',
      `Entry \`${subject.entry}\`; ${Object.entries(subject.facts)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')}.`,
    );
    for (const scenario of SCENARIOS) {
      const rows = results.rows.filter(
        (r) => r.subject === subject.name && r.scenario === scenario,
      );
      if (rows.length > 0)
        lines.push('', `### ${SCENARIO_TITLES[scenario]}`, '', ...scenarioTable(rows));
    }
  }
  return `${lines.join('\n')}\n`;
}

function scenarioTable(rows: readonly Row[]): string[] {
  const reference = (phase: string) =>
    rows.find((r) => r.contestant === 'fluxlens' && r.phase === phase) ?? rows[0];
  const out = [
    '| Contestant | Phase | Median | Min to max | vs fluxlens | Peak RSS (tree) | Runs | Notes |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const row of rows) {
    const ref = reference(row.phase);
    const ratio = ref && ref !== row ? `${(row.medianMs / ref.medianMs).toFixed(2)}x` : '';
    out.push(
      `| ${row.contestant} | ${row.phase} | ${seconds(row.medianMs)} | ${seconds(row.minMs)} to ${seconds(row.maxMs)} | ${ratio} | ` +
        `${(row.peakBytes / MIB).toFixed(0)} MiB | ${row.samples.length} | ${notes(row)} |`,
    );
  }
  return out;
}

function notes(row: Row): string {
  const parts: string[] = [];
  if (row.failed > 0) parts.push(`${row.failed} failed: ${oneLine(row.failure ?? '')}`);
  if (row.objects !== undefined) parts.push(`${row.objects} objects`);
  const t = row.timings;
  if (t) {
    const step = (k: string) => (t[k] === undefined ? undefined : `${k} ${seconds(t[k])}`);
    parts.push(
      [step('render-base'), step('render-head'), step('diff'), step('total')]
        .filter(Boolean)
        .join(', '),
    );
    if (t['producers-rendered'] !== undefined)
      parts.push(
        `producers: ${t['producers-rendered']} rendered, ${t['producers-cached'] ?? 0} cached, ${t['producers-unchanged'] ?? 0} unchanged`,
      );
    if (t['builds-run'] !== undefined)
      parts.push(
        `builds: ${t['builds-cached'] ?? 0} cached, ${t['builds-run']} run, ${t['builds-carried'] ?? 0} carried; renders kept: ${t['renders-kept'] ?? 0}`,
      );
  }
  if (row.summary)
    parts.push(
      `changes: ${Object.entries(row.summary)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ')}`,
    );
  return parts.join('; ');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').slice(0, 160);
}
