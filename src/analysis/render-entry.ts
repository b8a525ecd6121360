/**
 * One entry (a cluster's folder) of a repository at one revision, rendered and printed as
 * `fluxlens render --rev --path` prints it: YAML with every Secret value redacted, and what
 * did not render. The worker runs it for the MCP endpoint's render_entry.
 */
import { UsageError } from '../errors.js';
import { repositoryPath } from '../model/index.js';
import { redactRenderError, secretValuesOf } from '../redact/index.js';
import {
  createEngine,
  type RenderMachine,
  renderSettings,
  RenderOptions,
} from '../render/index.js';
import type { ToolRunner } from '../tool-runner.js';
import { renderToYaml } from './render-output.js';

export interface EntryRequest {
  repoDir: string;
  /** The commit to render. */
  sha: string;
  /** The entry's folder, relative to the repository's top. */
  path: string;
  offline: boolean;
}

export interface EntryRender {
  yaml: string;
  /** One line per producer that did not render, redacted. */
  errors: string[];
}

export async function renderEntry(
  request: EntryRequest,
  deps: { runner: ToolRunner; machine: RenderMachine },
): Promise<EntryRender> {
  const entry = repositoryPath(request.path);
  if (entry === undefined) {
    throw new UsageError(`'${request.path.slice(0, 200)}' is not a folder inside the repository`);
  }
  const settings = renderSettings(deps.machine, RenderOptions.parse({ offline: request.offline }));
  const engine = createEngine('builtin', { runner: deps.runner, settings });
  const cluster = await engine.render({
    repoDir: request.repoDir,
    rev: request.sha,
    entry,
    sources: [],
  });
  const secrets = secretValuesOf(cluster);
  const errors = cluster.errors.map((error) => {
    const { producer, message } = redactRenderError(error, secrets);
    return `${producer.kind} ${producer.namespace}/${producer.name}: ${message.split('\n')[0] ?? ''}`;
  });
  return { yaml: renderToYaml(cluster), errors };
}
