/**
 * What a benchmark reads from the service's processes: the peak resident memory of a
 * process (alone, and with the tools it runs), sampled from /proc, and what each review
 * said of its renders in the worker's `analysis finished` log lines.
 */
import { readFileSync } from 'node:fs';
import { logLines } from '../../test/support/fault-checks.js';
import type { ServiceProcess } from '../../test/support/service.js';
import { treeRss } from '../render/measure.js';

const PAGE = 4096;
const SAMPLE_MS = 100;

export interface PeakMemory {
  /** The process itself (node: heap, code, buffers). */
  processBytes: number;
  /** The process and every child alive at a sample (git, kustomize, helm). */
  treeBytes: number;
}

/** Samples `pids` until stopped; the peak of each. */
export function samplePeaks(pids: readonly number[]): { stop(): PeakMemory[] } {
  const peaks = pids.map(() => ({ processBytes: 0, treeBytes: 0 }));
  const sample = () => {
    pids.forEach((pid, i) => {
      const peak = peaks[i];
      if (peak === undefined) return;
      peak.processBytes = Math.max(peak.processBytes, rss(pid));
      peak.treeBytes = Math.max(peak.treeBytes, treeRss(pid));
    });
  };
  const timer = setInterval(sample, SAMPLE_MS);
  sample();
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peaks;
    },
  };
}

function rss(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'latin1').split(' ')[1] ?? 0) * PAGE;
  } catch {
    return 0;
  }
}

/** One review's figures, from its `analysis finished` line. */
export interface ReviewFigures {
  worker: number;
  timings: Record<string, number>;
}

/** Every review the workers finished, in the order each logged it. */
export function reviewFigures(workers: readonly ServiceProcess[]): ReviewFigures[] {
  return workers.flatMap((worker, index) =>
    logLines(worker, 'analysis finished').map((line) => ({
      worker: index,
      timings: timingsOf(line['timings']),
    })),
  );
}

function timingsOf(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, number] => typeof e[1] === 'number'),
  );
}

/**
 * Reviews whose base was rendered rather than read back whole: a PR's head is a commit
 * never rendered before, so a review with no render kept rendered its base.
 */
export function baseRenders(reviews: readonly ReviewFigures[]): number {
  return reviews.filter((r) => (r.timings['renders-kept'] ?? 0) === 0).length;
}

export function sum(reviews: readonly ReviewFigures[], timing: string): number {
  return reviews.reduce((n, r) => n + (r.timings[timing] ?? 0), 0);
}

export const mib = (bytes: number): number => Math.round(bytes / 1024 / 1024);
