/**
 * The fluxlens command line. It only wires: parse arguments, load config, build the
 * engine, run, print, and map the final error to an exit code.
 */
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { AnalysisResult } from './model/analysis.js';
import {
  engineName,
  entryPath,
  oneOf,
  parseFlags,
  RENDER_OPTIONS,
  renderSettings,
  sourceMappings,
  toolRunner,
} from './cli-options.js';
import { loadConfig } from './config.js';
import { errorMessage, FluxlensError, SetupError, UsageError } from './errors.js';
import { repositoryRoot, repositoryUrl, type ResolvedRevisions } from './git/index.js';
import { runAnalysis, type AnalysisProgress } from './analysis/analyze.js';
import { createEngine, renderToJson, renderToYaml, type RenderProgress } from './render/index.js';
import { renderHtml, renderJson, renderMarkdown, renderText } from './report/index.js';
import { failsOn } from './policy/parse-policy.js';

const USAGE = `Usage: fluxlens <command> [options]

Commands:
  diff      Compare a pull request's head with its base as rendered objects, with risks
  render    Render a Flux repository into the objects Flux would apply

fluxlens diff [--repo DIR] [--base REV] [--head REV] [--path ENTRY]...
              [--format markdown|json|text|html] [--output FILE]
              [--fail-on info|caution|danger|never] [--engine builtin|flux-local]
  --repo DIR              git repository (default: current folder)
  --base REV              compare with the merge-base of REV and the head (default: the
                          upstream default branch: origin/HEAD's target, else origin/main,
                          origin/master, main, master)
  --head REV              the pull request's head (default: HEAD)
  --path ENTRY            a cluster's entry folder, repeatable (default: the clusters in the
                          base's .fluxlens.yaml, else the root)
  --format FORMAT         markdown (default), json, text (coloured on a terminal) or html
  --output FILE           write the report to FILE instead of standard output
  --fail-on LEVEL         exit 1 when a finding reaches LEVEL: info, caution, danger or never
                          (default: failOn in the base's .fluxlens.yaml, else danger)
  Also: --engine, --source, --repo-url, --lenient-substitution, --allow-remote-bases,
  --enable-exec-plugins, --skip-helm, --offline, --skip-crds, --kube-version,
  --api-versions, --is-upgrade, as for render (both revisions render the same way).

fluxlens render --repo DIR [--rev REV] [--path ENTRY] [--engine builtin|flux-local]
                [--source NAME=DIR]... [--output yaml|json]
  --repo DIR              repository folder (default: current folder)
  --rev REV               render this git revision's tree instead of the files on disk
  --path ENTRY            entry folder inside the repository (default: the root)
  --engine NAME           builtin (default) or flux-local
  --source NAME=DIR       use DIR for the Flux source NAME (also NAMESPACE/NAME)
  --repo-url URL          this repository's URL, to recognise GitRepositories that point at it
  --output FORMAT         yaml (default) or json
  --lenient-substitution  undefined substitution variables become empty (Flux before 2.9)
  --allow-remote-bases    let kustomize fetch remote resources
  --enable-exec-plugins   let kustomize run exec plugins
  --skip-helm             do not inflate HelmReleases (they stay plain objects)
  --offline               charts only from the chart cache and the repository itself
  --skip-crds             leave chart CRDs out whatever the release's CRD policy
  --kube-version VER      .Capabilities.KubeVersion for charts (default: helm's)
  --api-versions GV       add to .Capabilities.APIVersions (repeatable)
  --is-upgrade            render HelmReleases as upgrades of existing releases
  -h, --help              show this help

Exit codes: render: 0 rendered (failed producers are listed in the output), 2 usage or
setup error. diff: 0 done, 1 a finding reaches --fail-on, 2 usage, setup or other error.
`;

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress lines). */
  isTTY: boolean;
  /** Whether stdout is a terminal (coloured text reports); false when absent. */
  stdoutIsTTY?: boolean;
  env: NodeJS.ProcessEnv;
}

const defaultIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  env: process.env,
};

export async function main(argv: string[], io: CliIO = defaultIO): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    if (command === 'render') return await renderCommand(rest, io);
    if (command === 'diff') return await diffCommand(rest, io);
    throw new UsageError(`unknown command '${command}' (see fluxlens --help)`);
  } catch (err) {
    if (err instanceof FluxlensError && err.code !== 'tool') {
      io.stderr(`fluxlens: ${err.message}\n`);
      return 2;
    }
    io.stderr(`fluxlens: ${errorMessage(err)}\n`);
    // diff's exit 1 means "a finding reached --fail-on"; a failure must not look like one.
    return argv[0] === 'diff' ? 2 : 1;
  }
}

function parseRenderArgs(args: string[]) {
  return parseFlags(args, {
    repo: { type: 'string', default: '.' },
    rev: { type: 'string' },
    path: { type: 'string', default: '.' },
    output: { type: 'string', default: 'yaml' },
    ...RENDER_OPTIONS,
  });
}

async function renderCommand(args: string[], io: CliIO): Promise<number> {
  const opts = parseRenderArgs(args);
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  const engine = engineName(opts);
  if (opts.output !== 'yaml' && opts.output !== 'json') {
    throw new UsageError(`--output must be yaml or json, got '${opts.output}'`);
  }
  const sources = sourceMappings(opts);
  const config = loadConfig(io.env, availableParallelism());
  const runner = toolRunner(config);
  const renderer = createEngine(engine, { runner, settings: renderSettings(opts, config) });
  // A revision is read from the top of the work tree; a folder on disk renders as it is.
  const repo = opts.rev === undefined ? opts.repo : await repositoryRoot(runner, opts.repo);
  const repoUrl = opts['repo-url'] ?? (await repositoryUrl(runner, repo));
  const progress = io.isTTY
    ? (p: RenderProgress) => io.stderr(`\rrendering ${p.done}/${p.total} producers`)
    : undefined;
  const cluster = await renderer.render(
    {
      repoDir: repo,
      entry: entryPath(opts.path),
      sources,
      ...(opts.rev !== undefined ? { rev: opts.rev } : {}),
      ...(repoUrl !== undefined ? { repoUrl } : {}),
    },
    progress,
  );
  if (progress) io.stderr('\r\x1b[K');
  io.stdout(opts.output === 'json' ? renderToJson(cluster) : renderToYaml(cluster));
  return 0;
}

const FORMATS = ['markdown', 'json', 'text', 'html'] as const;
type Format = (typeof FORMATS)[number];
const FAIL_ON = ['info', 'caution', 'danger', 'never'] as const;
type FailOn = (typeof FAIL_ON)[number];

function parseDiffArgs(args: string[]) {
  return parseFlags(args, {
    repo: { type: 'string', default: '.' },
    base: { type: 'string' },
    head: { type: 'string' },
    path: { type: 'string', multiple: true, default: [] },
    format: { type: 'string', default: 'markdown' },
    output: { type: 'string' },
    'fail-on': { type: 'string' },
    ...RENDER_OPTIONS,
  });
}

function describeRevisions(r: ResolvedRevisions): string {
  const from =
    r.baseSource === 'argument'
      ? `--base ${r.base.rev}`
      : r.baseSource === 'origin/HEAD'
        ? `${r.base.rev}, the upstream default branch (origin/HEAD)`
        : `${r.base.rev} (no origin/HEAD; first of origin/main, origin/master, main, master)`;
  return `comparing head ${r.head.sha.slice(0, 12)} (${r.head.rev}) with base ${r.base.sha.slice(0, 12)}, its merge-base with ${from}\n`;
}

function formatReport(result: AnalysisResult, format: Format, color: boolean): string {
  switch (format) {
    case 'markdown':
      return renderMarkdown(result);
    case 'json':
      return renderJson(result);
    case 'text':
      return renderText(result, { color });
    case 'html':
      return renderHtml(result);
  }
}

async function diffCommand(args: string[], io: CliIO): Promise<number> {
  const opts = parseDiffArgs(args);
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  const engine = engineName(opts);
  const format = oneOf('--format', opts.format, FORMATS);
  const failOnFlag =
    opts['fail-on'] !== undefined ? oneOf('--fail-on', opts['fail-on'], FAIL_ON) : undefined;
  const sources = sourceMappings(opts);
  const paths = opts.path.map(entryPath);
  const config = loadConfig(io.env, availableParallelism());
  const runner = toolRunner(config);
  const settings = renderSettings(opts, config);
  // Run from a subfolder of the checkout, the whole repository is still what is reviewed.
  const repo = await repositoryRoot(runner, opts.repo, { timeoutMs: settings.toolTimeoutMs });
  const repoUrl = opts['repo-url'] ?? (await repositoryUrl(runner, repo));
  const { result, policy } = await runAnalysis(
    {
      repoDir: repo,
      paths,
      engine: createEngine(engine, { runner, settings }),
      sources,
      ...(opts.base !== undefined ? { base: opts.base } : {}),
      ...(opts.head !== undefined ? { head: opts.head } : {}),
      ...(repoUrl !== undefined ? { repoUrl } : {}),
    },
    {
      runner,
      settings,
      onRevisions: (r) => io.stderr(`fluxlens: ${describeRevisions(r)}`),
      ...(io.isTTY
        ? {
            onProgress: (p: AnalysisProgress) =>
              io.stderr(`\r\x1b[Krendering ${p.cluster} at ${p.side}: ${p.done}/${p.total}`),
          }
        : {}),
    },
  );
  if (io.isTTY) io.stderr('\r\x1b[K');
  await writeReport(result, format, opts.output, io);
  const failOn: FailOn = failOnFlag ?? policy.failOn;
  return failsOn(result.findings, failOn) ? 1 : 0;
}

/** To `output` when given, else stdout; colour only for text on a terminal. */
async function writeReport(
  result: AnalysisResult,
  format: Format,
  output: string | undefined,
  io: CliIO,
): Promise<void> {
  if (output === undefined) {
    io.stdout(formatReport(result, format, io.stdoutIsTTY === true));
    return;
  }
  await writeFile(output, formatReport(result, format, false)).catch((err: unknown) => {
    throw new SetupError(`cannot write ${output}: ${errorMessage(err)}`, { cause: err });
  });
}
