/**
 * The repository a burst of PRs is opened on: the benchmark fleet (bench/render/), its
 * charts served by a loopback chart repository, and PR heads that each change one line of
 * the base: the image tag of one app's Deployment, a different app per PR, as Renovate's
 * image bumps do. Also the repository-wide PR: a value added to every HelmRelease.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageCharts, startChartRepository } from '../render/chart-repository.js';
import { generateFleet } from '../render/generate-fleet.js';
import { TOOL_PATH } from '../render/tools.js';

export interface BurstFleet {
  /** What startServiceWorld commits: 'base', or head `i` written over the base. */
  files: (step: 'base' | number) => Record<string, string>;
  /** The path each head changes (one line of it). */
  changed: string[];
  facts: { kustomizations: number; releases: number };
  close(): Promise<void>;
}

export interface BurstFleetOptions {
  kustomizations: number;
  releases: number;
  seed: number;
  /** Heads of one-line changes. */
  heads: number;
  /** A last head that adds `spec.values.burstRevision` to every HelmRelease. */
  everyRelease?: boolean;
}

export async function burstFleet(options: BurstFleetOptions): Promise<BurstFleet> {
  const work = mkdtempSync(join(tmpdir(), 'fluxlens-burst-charts-'));
  const root = join(work, 'charts');
  const charts = await startChartRepository(root);
  packageCharts(root, charts.url, { ...process.env, PATH: TOOL_PATH, HOME: work });
  const fleet = generateFleet({ ...options, chartRepositoryUrl: charts.url });
  const deployments = Object.keys(fleet.files)
    .filter((path) => path.endsWith('/deployment.yaml'))
    .sort();
  if (deployments.length < options.heads) {
    throw new Error(`${options.heads} PRs need as many apps; the fleet has ${deployments.length}`);
  }
  const changed = deployments.slice(0, options.heads);
  const releaseFiles = Object.keys(fleet.files).filter((path) =>
    path.endsWith('helmreleases.yaml'),
  );
  const files = (step: 'base' | number): Record<string, string> => {
    if (step === 'base') return fleet.files;
    const path = changed[step];
    if (path !== undefined) return { [path]: bumpImage(fleet.files[path] ?? '') };
    return Object.fromEntries(releaseFiles.map((p) => [p, addValue(fleet.files[p] ?? '')]));
  };
  return {
    files,
    changed,
    facts: { kustomizations: options.kustomizations, releases: options.releases },
    close: async () => {
      await charts.close();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

/** The minor version of the Deployment's image tag, one up: a one-line change. */
function bumpImage(text: string): string {
  const bumped = text.replace(
    /^(\s+image: \S+:)(\d+)\.(\d+)\.(\d+)$/m,
    (_, head: string, major: string, minor: string) => `${head}${major}.${Number(minor) + 1}.0`,
  );
  if (bumped === text) throw new Error('no image tag to bump in the Deployment');
  return bumped;
}

/** `values.burstRevision: "2"` in every HelmRelease of a stream (each has `values:`). */
function addValue(text: string): string {
  const added = text.replace(/^(\s+)values:\n/gm, (line, indent: string) => {
    return `${line}${indent}  burstRevision: "2"\n`;
  });
  if (added === text) throw new Error('no HelmRelease values to add to');
  return added;
}
