/**
 * The RenderEngine seam: one repository at one revision in, a RenderedCluster out.
 * Implementations: the builtin engine (default) and flux-local; what they are given to
 * render with is in settings.ts.
 */
import type { ToolRunner } from '../tool-runner.js';
import type { RenderedCluster } from '../model/index.js';
import type { RenderMemo } from './cache/index.js';
import type { EngineName, RenderSettings } from './settings.js';
import type { SourceMapping } from './source-mapping.js';

export { RenderMemo, type RenderMemoCounts } from './cache/index.js';

export interface RenderRequest {
  /** The repository folder (its git root when `rev` is set). */
  repoDir: string;
  /** Render this revision's tree instead of the folder as it is on disk. */
  rev?: string;
  /** Entry folder relative to repoDir; '.' for the root. */
  entry: string;
  sources: readonly SourceMapping[];
  /** The repository's own URL, to recognise GitRepositories that point at it. */
  repoUrl?: string;
  /**
   * Shared by the renders of one cluster at a review's two revisions: the first keeps each
   * producer's outcome under its content key, and the second takes it for every producer
   * whose key is the same (it changed nothing that producer reads) instead of rendering
   * it again. Engines that key nothing ignore it.
   */
  memo?: RenderMemo;
}

export interface RenderProgress {
  done: number;
  total: number;
}

export interface RenderEngine {
  readonly name: EngineName;
  render(
    request: RenderRequest,
    onProgress?: (p: RenderProgress) => void,
  ): Promise<RenderedCluster>;
}

export interface EngineDeps {
  runner: ToolRunner;
  settings: RenderSettings;
  /**
   * Where the engine says what an operator should know and the result does not hold: a
   * resident helper (kustomize-server, helm-server) that could not serve a run, which the
   * tool's binary ran instead. Absent: said nowhere.
   */
  warn?: ((message: string, fields: Record<string, string>) => void) | undefined;
}
