/**
 * The RenderEngine seam: one repository at one revision in, a RenderedCluster out.
 * Implementations: the builtin engine (default) and flux-local.
 */
import type { ToolRunner } from '../run-tool.js';
import type { RenderedCluster } from './model.js';
import type { SourceMapping } from './sources.js';

export type EngineName = 'builtin' | 'flux-local';

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
}

export interface RenderSettings {
  /** Missing substitution variables are errors (Flux 2.9's default). */
  strictSubstitution: boolean;
  allowRemoteBases: boolean;
  enableExecPlugins: boolean;
  concurrency: number;
  toolTimeoutMs: number;
  maxOutputBytes: number;
  maxSourceFiles: number;
}

export const DEFAULT_RENDER_SETTINGS: RenderSettings = {
  strictSubstitution: true,
  allowRemoteBases: false,
  enableExecPlugins: false,
  concurrency: 2,
  toolTimeoutMs: 120_000,
  maxOutputBytes: 64 * 1024 * 1024,
  maxSourceFiles: 100_000,
};

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
}
