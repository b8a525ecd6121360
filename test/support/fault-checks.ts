/**
 * What the fault tests read back from a service world: the PR's check runs and sticky
 * comment in the GitHub emulator, a process's JSON log lines, a job's state through the
 * API, and a worker's /healthz.
 */
import { COMMENT_MARKER } from '../../src/review/index.js';
import {
  eventually,
  OWNER,
  REPO,
  sleep,
  type ServiceProcess,
  type ServiceWorld,
} from './service.js';

export const runsFor = (world: ServiceWorld, sha: string) =>
  world.emulator.state().checkRuns.filter((r) => r.head_sha === sha && r.name === 'fluxlens');

export const completedRun = (world: ServiceWorld, sha: string) =>
  runsFor(world, sha).find((r) => r.status === 'completed');

/** The sticky comments of fluxlens on one PR. */
export const ourComments = (world: ServiceWorld, pull: number) =>
  world.emulator
    .state()
    .comments.filter((c) => c.issueNumber === pull && c.body.includes(COMMENT_MARKER));

/** Waits for the head's check run to complete, and returns it. */
export const reviewed = (world: ServiceWorld, sha: string, timeoutMs = 90_000) =>
  eventually(() => completedRun(world, sha), `the review of ${sha.slice(0, 7)}`, timeoutMs);

export type LogLine = Record<string, unknown> & { msg?: string };

/** The process's pino lines with message `msg` (every line without). */
export function logLines(process: ServiceProcess, msg?: string): LogLine[] {
  return process
    .output()
    .split('\n')
    .flatMap((line): LogLine[] => {
      if (!line.startsWith('{')) return [];
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    })
    .filter((line) => msg === undefined || line.msg === msg);
}

/** The job ids a webhook answer lists (`{ jobs: [{ jobId }] }`). */
export async function jobIdsOf(response: Response): Promise<string[]> {
  const body = (await response.json()) as { jobs?: Array<{ jobId?: string }> };
  return (body.jobs ?? []).flatMap((j) => (j.jobId === undefined ? [] : [j.jobId]));
}

export interface JobView {
  status?: string;
  attempts?: number;
  reason?: string;
}

export async function jobState(world: ServiceWorld, jobId: string): Promise<JobView> {
  const response = await fetch(`${world.serverUrl}/api/v1/renders/${jobId}`, {
    headers: { authorization: `Bearer ${world.secrets.apiToken}` },
  });
  return (await response.json()) as JobView;
}

/** Polls the job until it is completed, failed or cancelled. */
export async function settledJob(
  world: ServiceWorld,
  jobId: string,
  timeoutMs = 90_000,
): Promise<JobView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await jobState(world, jobId);
    if (['completed', 'failed', 'cancelled'].includes(state.status ?? '')) return state;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${state.status ?? '?'}`);
    await sleep(200);
  }
}

/** A counter's value in Prometheus text, 0 when the series is absent. */
export function counter(metrics: string, series: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

export async function metricsOf(url: string): Promise<string> {
  return (await fetch(`${url}/metrics`)).text();
}

/** The PR's stored analysis result, through the API. */
export async function storedResult(
  world: ServiceWorld,
  pull: number,
): Promise<{ errors: Array<{ producer: { kind: string; name: string }; message: string }> }> {
  const url = `${world.serverUrl}/api/v1/repos/${OWNER}/${REPO}/pulls/${pull}`;
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${world.secrets.apiToken}` },
  });
  return (await response.json()) as Awaited<ReturnType<typeof storedResult>>;
}
