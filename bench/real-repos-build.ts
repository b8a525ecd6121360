/**
 * fluxlens built from a commit of this checkout rather than its work tree, for a run whose
 * figures must name the code they measured while the work tree is being edited: the
 * commit's tree is exported with `git archive` (nothing in the checkout changes) and
 * compiled with its own tsconfig, node_modules linked beside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, type FluxlensLauncher } from './render/tools.js';

export function buildAtRevision(
  rev: string,
  dist: string,
): { launcher: FluxlensLauncher; commit: string } {
  const commit = execFileSync('git', ['-C', ROOT, 'rev-parse', '--verify', `${rev}^{commit}`], {
    encoding: 'utf8',
  }).trim();
  const tree = join(dist, commit);
  const out = join(tree, 'dist');
  const cli = join(out, 'src', 'cli', 'index.js');
  if (!existsSync(cli)) {
    rmSync(tree, { recursive: true, force: true });
    mkdirSync(tree, { recursive: true });
    const archive = join(dist, `${commit}.tar`);
    execFileSync('git', ['-C', ROOT, 'archive', '--output', archive, commit]);
    execFileSync('tar', ['-xf', archive, '-C', tree]);
    rmSync(archive);
    symlinkSync(join(ROOT, 'node_modules'), join(tree, 'node_modules'));
    const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
    execFileSync(tsc, ['-p', 'tsconfig.build.json', '--outDir', out], { cwd: tree, stdio: 'pipe' });
  }
  const code = `const { main } = await import(${JSON.stringify(cli)}); process.exitCode = await main(process.argv.slice(1));`;
  const launcher = {
    prefix: ['--input-type=module', '-e', code, '--'],
    describe: `node, built from ${commit.slice(0, 12)}`,
  };
  return { launcher, commit };
}
