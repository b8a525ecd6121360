/**
 * A tools folder whose kustomize never finishes a build: it writes its process id to a
 * file, then sleeps, so a test can stop fluxlens while kustomize runs. Every other tool,
 * and `kustomize version`, is the real one.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wrappedKustomizeTools } from './tools.js';

export interface SlowTools {
  /** Pass as FLUXLENS_TOOLS_DIR, with FLUXLENS_KUSTOMIZE_SERVER=off. */
  dir: string;
  /** Process ids of the builds started so far. */
  builds(): number[];
  remove(): void;
}

export function slowKustomizeTools(): SlowTools {
  // exec keeps the process id: the one written is the one that sleeps.
  const tools = wrappedKustomizeTools(
    (kustomize, dir) => `#!/bin/sh
if [ "$1" = build ]; then
  echo $$ >> '${join(dir, 'started')}'
  exec sleep 600
fi
exec '${kustomize}' "$@"
`,
  );
  const started = join(tools.dir, 'started');
  return {
    dir: tools.dir,
    builds: () =>
      existsSync(started)
        ? readFileSync(started, 'utf8').split('\n').filter(Boolean).map(Number)
        : [],
    remove: tools.remove,
  };
}
