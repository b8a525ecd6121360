/** The top folder of a git work tree, for commands started from one of its subfolders. */
import { ToolError, type ToolRunner } from '../tool-runner.js';
import type { GitOptions } from './merge-base.js';

/**
 * The top of the work tree that holds `dir`: git reads some paths from the top
 * (`ls-tree --full-tree`) and writes others relative to the current folder
 * (`checkout-index`), so every revision is read from the top. `dir` itself for a bare
 * repository or a folder outside git; later steps say what is wrong with it.
 */
export async function repositoryRoot(
  runner: ToolRunner,
  dir: string,
  options: GitOptions = {},
): Promise<string> {
  try {
    const { stdout } = await runner.run(
      'git',
      ['-C', dir, 'rev-parse', '--show-toplevel'],
      options,
    );
    return stdout.trim() || dir;
  } catch (err) {
    if (err instanceof ToolError) return dir;
    throw err;
  }
}
