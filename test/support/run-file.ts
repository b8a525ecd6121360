/** Runs a program to its end from the project root, for tests that judge its exit code and output. */
import { execFile } from 'node:child_process';
import { projectRoot } from './paths.js';

export interface FileRun {
  /** The exit code; null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `file args` in the project root with `env`; never rejects, a failure is its code and output.
 * `maxBuffer` bounds each of stdout and stderr (execFile's 1 MiB unless said).
 */
export function runFile(
  file: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; maxBuffer?: number } = {},
): Promise<FileRun> {
  const { env = process.env, maxBuffer } = options;
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: projectRoot, env, ...(maxBuffer === undefined ? {} : { maxBuffer }) },
      (err, stdout, stderr) => {
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
