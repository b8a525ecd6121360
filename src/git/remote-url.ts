/** The repository's own URL (its `origin` remote), when it is a git repository with one. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ToolRunner } from '../tool-runner.js';

export async function repositoryUrl(
  runner: ToolRunner,
  repoDir: string,
): Promise<string | undefined> {
  if (!(await stat(join(repoDir, '.git')).catch(() => undefined))) return undefined;
  try {
    const { stdout } = await runner.run('git', ['-C', repoDir, 'remote', 'get-url', 'origin']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}
