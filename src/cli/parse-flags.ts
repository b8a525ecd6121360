/**
 * Strict flag parsing for every command, in a module of its own: `fluxlens serve --help` and
 * a mistyped flag parse without loading what render and diff run on.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { errorMessage, UsageError } from '../errors.js';
import { nearest } from './suggest.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Strict flag parsing, no positionals; a bad flag is a usage error (exit 2). */
export function parseFlags<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs({ args, strict: true, allowPositionals: false, options }).values;
  } catch (err) {
    throw new UsageError(flagError(err, Object.keys(options)));
  }
}

/** Node's message for an unknown option is about positionals; say what was meant instead. */
function flagError(err: unknown, known: readonly string[]): string {
  const code = (err as { code?: unknown }).code;
  const unknown = /Unknown option '(-{1,2})([^']*)'/.exec(errorMessage(err));
  if (code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || unknown === null) return errorMessage(err);
  const [, dashes = '--', name = ''] = unknown;
  const meant = nearest(name, known);
  return `unknown option '${dashes}${name}'${meant ? `; did you mean --${meant}?` : ''}`;
}
