/**
 * The fluxlens command line. It only wires: parse arguments, run a command, and map the
 * final error to an exit code and a message, with advice the error's data calls for.
 */
import { classify, errorMessage, RevisionError, UsageError } from '../errors.js';
import {
  askedShutdown,
  SIGNAL_EXIT_CODES,
  ShutdownRequested,
  shutdownOnSignals,
} from '../shutdown.js';
import { FLUXLENS_VERSION } from '../version.js';
import type { CliIO } from './io.js';
import { parseFlags } from './parse-flags.js';
import { nearest } from './suggest.js';
import { USAGE, usageOf } from './usage.js';

const COMMANDS = ['diff', 'render', 'serve', 'worker', 'action'];

export type { CliIO } from './io.js';

/** The signal that stopped the command, without adding listeners to find out. */
function stoppedBy(io: CliIO): ShutdownRequested | undefined {
  const signal = io === defaultIO ? askedShutdown() : io.shutdown;
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  return reason instanceof ShutdownRequested ? reason : undefined;
}

const defaultIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
  stdoutIsTTY: process.stdout.isTTY === true,
  env: process.env,
  get shutdown() {
    return shutdownOnSignals();
  },
};

export async function main(argv: string[], io: CliIO = defaultIO): Promise<number> {
  const code = await run(argv, io);
  // The signal cut the work short, which has been cancelled and cleaned up by now, and
  // whatever the command printed is incomplete.
  const stopped = stoppedBy(io);
  if (stopped === undefined) return code;
  io.stderr(`fluxlens: stopped by ${stopped.signal}\n`);
  return SIGNAL_EXIT_CODES[stopped.signal];
}

async function run(argv: string[], io: CliIO): Promise<number> {
  try {
    const [command, ...rest] = argv;
    if (command === undefined || command === '-h' || command === '--help' || command === 'help') {
      io.stdout(USAGE);
      return 0;
    }
    if (command === '--version' || command === '-V') {
      io.stdout(`${FLUXLENS_VERSION}\n`);
      return 0;
    }
    // Each command loads what it runs on when it runs: --version and --help load none of
    // it, render and diff not the Action's Octokit.
    if (command === 'render')
      return await (await import('./render-command.js')).renderCommand(rest, io);
    if (command === 'diff') return await (await import('./diff-command.js')).diffCommand(rest, io);
    if (command === 'action')
      return await (await import('./action-command.js')).actionCommand(rest, io);
    // bin/fluxlens.js runs serve and worker as processes of their own (workers/); here only
    // their help is left, and serve's refusal of flags it does not take.
    if (command === 'worker' && (rest.includes('--help') || rest.includes('-h'))) {
      io.stdout(usageOf('worker'));
      return 0;
    }
    if (command === 'serve') return serveHelp(rest, io);
    const meant = nearest(command, COMMANDS);
    const hint = meant ? `; did you mean '${meant}'?` : ' (see fluxlens --help)';
    throw new UsageError(`unknown command '${command}'${hint}`);
  } catch (err) {
    // Cancelled by the signal: main says so, once.
    if (classify(err) === 'cancelled' && stoppedBy(io)) return 1;
    io.stderr(`fluxlens: ${errorMessage(err)}${advice(err)}\n`);
    const kind = classify(err);
    if (kind === 'usage' || kind === 'setup') return 2;
    // diff's and action's exit 1 means "a finding reached failOn": a failure must not look so.
    return argv[0] === 'diff' || argv[0] === 'action' ? 2 : 1;
  }
}

/** `fluxlens serve` with arguments: it takes none but --help (bin/ runs it without any). */
function serveHelp(args: string[], io: CliIO): number {
  if (!parseFlags(args, { help: { type: 'boolean', short: 'h', default: false } }).help) {
    throw new UsageError('fluxlens serve takes no arguments; FLUXLENS_* variables configure it');
  }
  io.stdout(usageOf('serve'));
  return 0;
}

/** What the user can do next, in the CLI's words (the error only says why). */
function advice(err: unknown): string {
  if (!(err instanceof RevisionError)) return '';
  switch (err.reason) {
    case 'no-common-ancestor':
      return '; pass --base with a revision on the same history';
    case 'shallow-clone':
      return '; fetch the history back to where they meet (git fetch --unshallow, or fetch-depth: 0 with actions/checkout)';
    case 'no-default-branch':
      return '; pass --base REV';
    case 'unknown':
      return '';
  }
}
