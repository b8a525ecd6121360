/**
 * Runs one scenario's contestants in alternation, `runs` times: iteration i starts with
 * contestant i (mod n) and goes round, so load that comes and goes on a shared machine
 * falls on every contestant alike and none always runs first. Keeps every sample; the
 * report takes medians.
 */
import { existsSync, readFileSync } from 'node:fs';
import { measure } from './measure.js';
import type { Contestant, Phase, Scenario, ScenarioName } from './scenarios.js';
import type { ToolName } from './tools.js';

export interface Sample {
  ms: number;
  peakBytes: number;
  exitCode: number | null;
}

export interface Row {
  subject: string;
  scenario: ScenarioName;
  contestant: string;
  tool: ToolName;
  phase: string;
  samples: Sample[];
  medianMs: number;
  minMs: number;
  maxMs: number;
  /** The highest process-tree peak over the runs. */
  peakBytes: number;
  failed: number;
  /** Standard error's tail of the first failed run. */
  failure?: string;
  /** Medians of fluxlens's own timings (its JSON report), ms and build counts. */
  timings?: Record<string, number>;
  /** fluxlens's change summary of the last run. */
  summary?: Record<string, number>;
  /** YAML documents in the last run's output (full renders). */
  objects?: number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] ?? Number.NaN)
    : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

interface Collected {
  contestant: Contestant;
  phase: Phase;
  samples: Sample[];
  failure?: string;
  reports: Array<{ timings?: Record<string, number>; summary?: Record<string, number> }>;
}

export async function runScenario(
  subject: string,
  scenario: Scenario,
  runs: number,
  log: (line: string) => void,
): Promise<Row[]> {
  const collected = new Map<string, Collected>();
  for (let i = 0; i < runs; i++) {
    const active = scenario.contestants.filter((c) => (c.runs ?? runs) > i);
    const turn = active.length === 0 ? 0 : i % active.length;
    for (const contestant of [...active.slice(turn), ...active.slice(0, turn)]) {
      await contestant.prepare();
      for (const phase of contestant.phases) {
        const key = `${contestant.id}\0${phase.label}`;
        const entry = collected.get(key) ?? { contestant, phase, samples: [], reports: [] };
        collected.set(key, entry);
        const sample = await runPhase(phase, entry);
        entry.samples.push(sample);
        if (phase.report !== undefined && existsSync(phase.report))
          entry.reports.push(readReport(phase.report));
        const mib = (sample.peakBytes / 2 ** 20).toFixed(0);
        const failed = sample.exitCode === 0 ? '' : `  FAILED (exit ${sample.exitCode})`;
        log(
          `  ${scenario.name} ${i + 1}/${runs}  ${contestant.id} ${phase.label}: ${sample.ms.toFixed(0)} ms, ${mib} MiB${failed}`,
        );
      }
    }
  }
  return [...collected.values()].map((c) => toRow(subject, scenario.name, c));
}

async function runPhase(phase: Phase, entry: Collected): Promise<Sample> {
  const sample: Sample = { ms: 0, peakBytes: 0, exitCode: 0 };
  for (const command of phase.commands) {
    const m = await measure(command);
    sample.ms += m.ms;
    sample.peakBytes = Math.max(sample.peakBytes, m.peakBytes);
    if (m.exitCode !== 0 && sample.exitCode === 0) {
      sample.exitCode = m.exitCode;
      entry.failure ??= m.stderrTail;
    }
  }
  return sample;
}

function readReport(file: string): Collected['reports'][number] {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as {
      timings?: Record<string, number>;
      summary?: Record<string, number>;
    };
    return {
      ...(parsed.timings ? { timings: parsed.timings } : {}),
      ...(parsed.summary ? { summary: parsed.summary } : {}),
    };
  } catch {
    return {};
  }
}

function toRow(subject: string, scenario: ScenarioName, c: Collected): Row {
  const ms = c.samples.map((s) => s.ms);
  const row: Row = {
    subject,
    scenario,
    contestant: c.contestant.id,
    tool: c.contestant.tool,
    phase: c.phase.label,
    samples: c.samples,
    medianMs: median(ms),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    peakBytes: Math.max(...c.samples.map((s) => s.peakBytes)),
    failed: c.samples.filter((s) => s.exitCode !== 0).length,
    ...(c.failure !== undefined ? { failure: c.failure } : {}),
  };
  const timings = c.reports.flatMap((r) => (r.timings ? [r.timings] : []));
  if (timings.length > 0) {
    const keys = [...new Set(timings.flatMap((t) => Object.keys(t)))].sort();
    row.timings = Object.fromEntries(keys.map((k) => [k, median(timings.map((t) => t[k] ?? 0))]));
  }
  const summary = c.reports.at(-1)?.summary;
  if (summary) row.summary = summary;
  const output = c.phase.commands[0]?.stdout;
  if (scenario === 'cold' && output !== undefined && existsSync(output)) {
    row.objects = (readFileSync(output, 'utf8').match(/^kind: /gm) ?? []).length;
  }
  return row;
}
