/**
 * The fluxlens command line. It only wires: parse arguments, load config, build the
 * engine, run, print, and map the final error to an exit code.
 */
import { availableParallelism } from 'node:os';
import { isAbsolute, normalize } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from './config.js';
import { errorMessage, FluxlensError, UsageError } from './errors.js';
import { repositoryUrl } from './git/remote-url.js';
import {
  createEngine,
  DEFAULT_RENDER_SETTINGS,
  parseSourceMapping,
  renderToJson,
  renderToYaml,
  type EngineName,
  type RenderProgress,
  type SourceMapping,
} from './render/index.js';
import { ToolRunner } from './run-tool.js';

const USAGE = `Usage: fluxlens <command> [options]

Commands:
  render    Render a Flux repository into the objects Flux would apply

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

Exit codes: 0 rendered (failed producers are listed in the output), 2 usage or setup error.
`;

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  isTTY: boolean;
  env: NodeJS.ProcessEnv;
}

const defaultIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
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
    throw new UsageError(`unknown command '${command}' (see fluxlens --help)`);
  } catch (err) {
    if (err instanceof FluxlensError && err.code !== 'tool') {
      io.stderr(`fluxlens: ${err.message}\n`);
      return 2;
    }
    io.stderr(`fluxlens: ${errorMessage(err)}\n`);
    return 1;
  }
}

function parseRenderArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        repo: { type: 'string', default: '.' },
        rev: { type: 'string' },
        path: { type: 'string', default: '.' },
        engine: { type: 'string', default: 'builtin' },
        source: { type: 'string', multiple: true, default: [] },
        'repo-url': { type: 'string' },
        output: { type: 'string', default: 'yaml' },
        'lenient-substitution': { type: 'boolean', default: false },
        'allow-remote-bases': { type: 'boolean', default: false },
        'enable-exec-plugins': { type: 'boolean', default: false },
        'skip-helm': { type: 'boolean', default: false },
        offline: { type: 'boolean', default: false },
        'skip-crds': { type: 'boolean', default: false },
        'kube-version': { type: 'string' },
        'api-versions': { type: 'string', short: 'a', multiple: true, default: [] },
        'is-upgrade': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }).values;
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
}

function entryPath(path: string): string {
  const entry = normalize(path).replace(/\/+$/, '') || '.';
  if (isAbsolute(entry) || entry === '..' || entry.startsWith('../')) {
    throw new UsageError(`--path must be a folder inside the repository, got '${path}'`);
  }
  return entry;
}

async function renderCommand(args: string[], io: CliIO): Promise<number> {
  const opts = parseRenderArgs(args);
  if (opts.help) {
    io.stdout(USAGE);
    return 0;
  }
  if (opts.engine !== 'builtin' && opts.engine !== 'flux-local') {
    throw new UsageError(`--engine must be builtin or flux-local, got '${opts.engine}'`);
  }
  if (opts.output !== 'yaml' && opts.output !== 'json') {
    throw new UsageError(`--output must be yaml or json, got '${opts.output}'`);
  }
  const sources: SourceMapping[] = opts.source.map((s) => {
    const mapping = parseSourceMapping(s);
    if (!mapping) throw new UsageError(`--source must look like NAME=DIR, got '${s}'`);
    return mapping;
  });
  const config = loadConfig(io.env, availableParallelism());
  const runner = new ToolRunner({
    toolsBinDir: config.toolsBinDir,
    path: config.path,
    baseEnv: config.toolEnv,
  });
  const engine = createEngine(opts.engine as EngineName, {
    runner,
    settings: {
      ...DEFAULT_RENDER_SETTINGS,
      strictSubstitution: !opts['lenient-substitution'],
      allowRemoteBases: opts['allow-remote-bases'],
      enableExecPlugins: opts['enable-exec-plugins'],
      helm: {
        ...DEFAULT_RENDER_SETTINGS.helm,
        enabled: !opts['skip-helm'],
        chartCacheDir: config.chartCacheDir,
        offline: opts.offline,
        skipCrds: opts['skip-crds'],
        apiVersions: opts['api-versions'],
        isUpgrade: opts['is-upgrade'],
        ...(opts['kube-version'] !== undefined ? { kubeVersion: opts['kube-version'] } : {}),
      },
      concurrency: config.concurrency,
      toolTimeoutMs: config.toolTimeoutMs,
      maxOutputBytes: config.maxOutputBytes,
    },
  });
  const repoUrl = opts['repo-url'] ?? (await repositoryUrl(runner, opts.repo));
  const progress = io.isTTY
    ? (p: RenderProgress) => io.stderr(`\rrendering ${p.done}/${p.total} producers`)
    : undefined;
  const cluster = await engine.render(
    {
      repoDir: opts.repo,
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
