/**
 * A tools folder whose kustomize never finishes a build: it writes its process id to a
 * file, then sleeps, so a test can stop fluxlens while kustomize runs. Every other tool,
 * and `kustomize version`, is the real one.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SlowTools {
  /** Pass as FLUXLENS_TOOLS_DIR, with FLUXLENS_KUSTOMIZE_SERVER=off. */
  dir: string;
  /** Process ids of the builds started so far. */
  builds(): number[];
  remove(): void;
}

export function slowKustomizeTools(): SlowTools {
  const real = join(
    process.env['FLUXLENS_TOOLS_DIR'] ?? join(homedir(), '.fluxlens', 'tools'),
    'bin',
  );
  const kustomize = join(real, 'kustomize');
  if (!existsSync(kustomize)) throw new Error('kustomize not found: run scripts/install-tools');
  const dir = mkdtempSync(join(tmpdir(), 'fluxlens-slow-tools-'));
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  for (const name of readdirSync(real)) {
    if (name !== 'kustomize') symlinkSync(join(real, name), join(bin, name));
  }
  const started = join(dir, 'started');
  // exec keeps the process id: the one written is the one that sleeps.
  const script = `#!/bin/sh
if [ "$1" = build ]; then
  echo $$ >> '${started}'
  exec sleep 600
fi
exec '${kustomize}' "$@"
`;
  writeFileSync(join(bin, 'kustomize'), script);
  chmodSync(join(bin, 'kustomize'), 0o755);
  return {
    dir,
    builds: () =>
      existsSync(started)
        ? readFileSync(started, 'utf8').split('\n').filter(Boolean).map(Number)
        : [],
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
