/**
 * What a GitHub Actions runner gives a step, for tests of `fluxlens action`: the event
 * payload file (GitHub's recorded `pull_request` payload, pointed at a test's commits), the
 * summary and outputs files and the GITHUB_* variables, and the outputs read back.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { example, set } from '../unit/server/support/github-examples.js';

export interface PullRequestEvent {
  /** `owner/repo` of the base. */
  repository: string;
  number: number;
  baseSha: string;
  headSha: string;
  /** `owner/repo` the head branch lives in; a fork's differs from `repository`. */
  headRepository?: string;
}

/** Writes a `synchronize` payload for the pull request under `dir`; returns its path. */
export function writePullRequestEvent(dir: string, pull: PullRequestEvent): string {
  const payload = example('pull_request', 'synchronize');
  set(payload, 'number', pull.number);
  set(payload, 'pull_request.number', pull.number);
  set(payload, 'repository.full_name', pull.repository);
  set(payload, 'pull_request.base.sha', pull.baseSha);
  set(payload, 'pull_request.base.repo.full_name', pull.repository);
  set(payload, 'pull_request.head.sha', pull.headSha);
  set(payload, 'pull_request.head.repo.full_name', pull.headRepository ?? pull.repository);
  const file = join(mkdtempSync(join(dir, 'event-')), 'event.json');
  writeFileSync(file, JSON.stringify(payload));
  return file;
}

export interface ActionStep {
  env: Record<string, string>;
  /** GITHUB_STEP_SUMMARY */
  summary: string;
  /** GITHUB_OUTPUT */
  output: string;
}

/**
 * A step under `dir`: empty summary and outputs files, RUNNER_TEMP, and `env` (the GITHUB_*
 * variables and INPUT_* inputs a test sets) with those three added.
 */
export function actionStep(dir: string, env: Record<string, string>): ActionStep {
  const step = mkdtempSync(join(dir, 'step-'));
  const summary = join(step, 'summary.md');
  const output = join(step, 'output');
  writeFileSync(summary, '');
  writeFileSync(output, '');
  return {
    env: { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: output, RUNNER_TEMP: step, ...env },
    summary,
    output,
  };
}

/** The step's outputs file, read as the runner reads its `name<<DELIMITER` records. */
export function stepOutputs(step: ActionStep): Record<string, string> {
  const lines = readFileSync(step.output, 'utf8').split('\n');
  const out: Record<string, string> = {};
  for (let i = 0; i < lines.length; i += 1) {
    const m = /^([\w-]+)<<(.+)$/.exec(lines[i] ?? '');
    if (!m?.[1] || !m[2]) continue;
    const end = lines.indexOf(m[2], i + 1);
    out[m[1]] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return out;
}
