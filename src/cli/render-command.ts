/** `fluxlens render`: one repository at one revision (or as on disk) to YAML or JSON. */
import { availableParallelism } from 'node:os';
import { loadConfig } from '../config.js';
import { UsageError } from '../errors.js';
import { plural, type RenderedCluster } from '../model/index.js';
import { redactRenderError, secretValuesOf } from '../redact/index.js';
import { displayText } from '../report/index.js';
import { repositoryRoot, repositoryUrl } from '../git/index.js';
import { createEngine, renderSettings, type RenderProgress } from '../render/index.js';
import { createToolRunner } from '../tool-runner.js';
import { renderToJson, renderToYaml } from '../analysis/index.js';
import {
  engineName,
  entryPath,
  entryPaths,
  RENDER_OPTIONS,
  renderMachine,
  renderOptions,
  sourceMappings,
} from './flags.js';
import { stderrWarning, type CliIO } from './io.js';
import { parseFlags } from './parse-flags.js';
import { usageOf } from './usage.js';

function parseRenderArgs(args: string[]) {
  return parseFlags(args, {
    repo: { type: 'string', default: '.' },
    rev: { type: 'string' },
    path: { type: 'string' },
    output: { type: 'string', default: 'yaml' },
    ...RENDER_OPTIONS,
  });
}

export async function renderCommand(args: string[], io: CliIO): Promise<number> {
  const opts = parseRenderArgs(args);
  if (opts.help) {
    io.stdout(usageOf('render'));
    return 0;
  }
  const engine = engineName(opts);
  if (opts.output !== 'yaml' && opts.output !== 'json') {
    throw new UsageError(`--output must be yaml or json, got '${opts.output}'`);
  }
  const sources = sourceMappings(opts);
  const config = loadConfig(io.env, availableParallelism());
  // A signal stops the tools, and the engine removes its scratch folders on the way out.
  const tools = createToolRunner(config);
  const runner = io.shutdown ? tools.withSignal(io.shutdown) : tools;
  const settings = renderSettings(renderMachine(config, opts), renderOptions(opts));
  const renderer = createEngine(engine, { runner, settings, warn: stderrWarning(io) });
  // A revision is read from the top of the work tree; a folder on disk renders as it is.
  const repo = opts.rev === undefined ? opts.repo : await repositoryRoot(runner, opts.repo);
  const repoUrl = opts['repo-url'] ?? (await repositoryUrl(runner, repo));
  const progress = io.isTTY
    ? (p: RenderProgress) => io.stderr(`\rrendering ${p.done}/${p.total} producers`)
    : undefined;
  const cluster = await renderer.render(
    {
      repoDir: repo,
      entry:
        opts.path === undefined
          ? '.'
          : opts.rev === undefined
            ? entryPath(opts.path)
            : ((await entryPaths([opts.path], opts.repo, repo))[0] ?? '.'),
      sources,
      ...(opts.rev !== undefined ? { rev: opts.rev } : {}),
      ...(repoUrl !== undefined ? { repoUrl } : {}),
    },
    progress,
  );
  if (progress) io.stderr('\r\x1b[K');
  io.stdout(opts.output === 'json' ? renderToJson(cluster) : renderToYaml(cluster));
  io.stderr(notRendered(cluster, opts.output));
  return 0;
}

/**
 * What did not render, on stderr: a YAML stream has no place for it, and a render that
 * quietly leaves producers out reads as complete. JSON carries the detail in `errors`.
 */
function notRendered(cluster: RenderedCluster, output: string): string {
  const skipped = cluster.producers.filter((p) => p.skipped !== undefined);
  const assumed = cluster.producers.filter((p) => p.assumed !== undefined);
  if (cluster.errors.length === 0 && skipped.length === 0 && assumed.length === 0) return '';
  const secrets = secretValuesOf(cluster);
  const lines: string[] = [];
  if (cluster.errors.length > 0) {
    const where = output === 'json' ? ' (see errors in the output)' : ':';
    lines.push(`fluxlens: ${plural(cluster.errors.length, 'render error')}${where}`);
  }
  if (output !== 'json') {
    for (const error of cluster.errors) {
      const { producer, file, message } = redactRenderError(error, secrets);
      const at = file !== undefined ? ` (${file})` : '';
      const first = message.split('\n')[0] ?? '';
      lines.push(`  ${producer.kind} ${producer.namespace}/${producer.name}${at}: ${first}`);
    }
  }
  if (skipped.length > 0) {
    lines.push(`fluxlens: ${plural(skipped.length, 'producer')} not rendered (skipped):`);
    for (const p of skipped) lines.push(`  ${p.kind} ${p.namespace}/${p.name}: ${p.skipped}`);
  }
  if (assumed.length > 0) {
    lines.push(
      `fluxlens: ${plural(assumed.length, 'producer')} rendered with values only the cluster holds as unknown:`,
    );
    for (const p of assumed) {
      for (const a of p.assumed ?? []) lines.push(`  ${p.kind} ${p.namespace}/${p.name}: ${a}`);
    }
  }
  return `${lines.map(displayText).join('\n')}\n`;
}
