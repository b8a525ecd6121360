/** `fluxlens diff`: one analysis of a PR in-process, a report, and the gate's exit code. */
import { writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import {
  analyze,
  type AnalysisOutcome,
  type AnalysisProgress,
  type AnalysisRequest,
} from '../analysis/index.js';
import { loadConfig } from '../config.js';
import { errorMessage, SetupError } from '../errors.js';
import { repositoryRoot, repositoryUrl, type ResolvedRevisions } from '../git/index.js';
import { FAIL_ON, type AnalysisResult } from '../model/index.js';
import { renderHtml, renderJson, renderMarkdown, renderText } from '../report/index.js';
import { gate } from '../risk/index.js';
import { createToolRunner } from '../tool-runner.js';
import {
  engineName,
  entryPaths,
  oneOf,
  RENDER_OPTIONS,
  renderMachine,
  renderOptions,
  sourceMappings,
} from './flags.js';
import { stderrWarning, type CliIO } from './io.js';
import { parseFlags } from './parse-flags.js';
import { usageOf } from './usage.js';

const FORMATS = ['markdown', 'json', 'text', 'html'] as const;
type Format = (typeof FORMATS)[number];

export function parseDiffArgs(args: string[]) {
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

/** diff's flags, parsed; `action` fills the same flags from its event. */
export type DiffFlags = ReturnType<typeof parseDiffArgs>;

export async function diffCommand(args: string[], io: CliIO): Promise<number> {
  const opts = parseDiffArgs(args);
  if (opts.help) {
    io.stdout(usageOf('diff'));
    return 0;
  }
  const format = oneOf('--format', opts.format, FORMATS);
  const failOnFlag =
    opts['fail-on'] !== undefined ? oneOf('--fail-on', opts['fail-on'], FAIL_ON) : undefined;
  const { result, failOn } = await analyzeCheckout(opts, io);
  await writeReport(result, format, opts.output, io);
  return gate(result.findings, failOnFlag ?? failOn).failed ? 1 : 0;
}

/** The analysis of a checkout that diff's flags ask for, with progress on stderr. */
export async function analyzeCheckout(opts: DiffFlags, io: CliIO): Promise<AnalysisOutcome> {
  const engine = engineName(opts);
  const sources = sourceMappings(opts);
  const config = loadConfig(io.env, availableParallelism());
  const runner = createToolRunner(config);
  // Run from a subfolder of the checkout, the whole repository is still what is reviewed.
  const repo = await repositoryRoot(runner, opts.repo, { timeoutMs: config.toolTimeoutMs });
  const paths = await entryPaths(opts.path, opts.repo, repo);
  const repoUrl = opts['repo-url'] ?? (await repositoryUrl(runner, repo));
  const request: AnalysisRequest = {
    repoDir: repo,
    paths,
    engine,
    render: renderOptions(opts),
    sources,
    ...(opts.base !== undefined ? { base: opts.base } : {}),
    ...(opts.head !== undefined ? { head: opts.head } : {}),
    ...(repoUrl !== undefined ? { repoUrl } : {}),
  };
  const warning = stderrWarning(io);
  const say = (fields: Record<string, string>, message?: string) => warning(message ?? '', fields);
  const outcome = await analyze(request, {
    runner,
    machine: renderMachine(config, opts),
    onProgress: (p) => reportProgress(p, io),
    // Only the engine's warnings are worth a line: its helpers that fell back to a binary.
    logger: { debug: () => {}, info: () => {}, warn: say, error: say },
    // A signal stops the tools, and the engines remove their scratch folders on the way out.
    ...(io.shutdown ? { signal: io.shutdown } : {}),
  });
  if (io.isTTY) io.stderr('\r\x1b[K');
  return outcome;
}

function reportProgress(p: AnalysisProgress, io: CliIO): void {
  if (p.stage === 'revisions') {
    io.stderr(`fluxlens: ${describeRevisions(p.revisions)}`);
  } else if (io.isTTY) {
    io.stderr(`\r\x1b[Krendering ${p.cluster} at ${p.side}: ${p.done}/${p.total}`);
  }
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
