/**
 * The command line of each tool for one subject, in one place: its environment (a private
 * HOME and TMPDIR under the run's folder, the tools folder first on PATH), its cache
 * folder, and where its output goes. Nothing here runs anything.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from './measure.js';
import type { Subject } from './subjects.js';
import { TOOL_PATH, TOOLS_BIN, type FluxlensLauncher } from './tools.js';

export interface Installed {
  fluxlens: FluxlensLauncher;
  flate?: string | undefined;
  fluxLocal?: string | undefined;
}

export class Commands {
  readonly #env: Record<string, string>;

  constructor(
    private readonly subject: Subject,
    private readonly work: string,
    private readonly tools: Installed,
    /** Node flags for fluxlens runs (a CPU profile). */
    private readonly nodeFlags: string[] = [],
  ) {
    const home = join(work, 'home');
    this.#env = {
      PATH: TOOL_PATH,
      HOME: home,
      LANG: 'C.UTF-8',
      TMPDIR: join(work, 'tmp'),
      NO_COLOR: '1',
    };
    for (const dir of [home, join(work, 'tmp')]) mkdirSync(dir, { recursive: true });
  }

  /** A folder of the run that belongs to this subject, made on demand. */
  folder(...parts: string[]): string {
    const dir = join(this.work, slug(this.subject.name), ...parts.map(slug));
    mkdirSync(dir, { recursive: true });
    return dir;
  }

  fluxlensRender(cache: string, stdout: string, noCache: boolean): Command {
    const { subject } = this;
    const args = ['render', '--repo', subject.repo, '--rev', subject.base, '--path', subject.entry];
    return this.fluxlens([...args, ...(noCache ? ['--no-cache'] : [])], cache, stdout);
  }

  /** `fluxlens diff`, its JSON report (with timings) at `${stdout}.json`. */
  fluxlensDiff(head: string, cache: string, stdout: string, noCache: boolean): Command {
    const { subject } = this;
    const args = ['diff', '--repo', subject.repo, '--base', subject.base, '--head', head];
    args.push('--path', subject.entry, '--format', 'json', '--fail-on', 'never');
    args.push('--output', `${stdout}.json`);
    return this.fluxlens([...args, ...(noCache ? ['--no-cache'] : [])], cache, stdout);
  }

  flateBuild(cache: string, stdout: string): Command {
    const { subject } = this;
    const args = ['build', 'all', '--path', subject.entry, '--output', 'yaml'];
    return this.flate(args, subject.checkout(subject.base), cache, stdout);
  }

  /** flate's changed-only diff: the head's work tree against the base it materialises. */
  flateDiff(head: string, cache: string, stdout: string): Command {
    const { subject } = this;
    const args = ['diff', 'all', '--path', subject.entry, '--base', subject.base];
    return this.flate(args, subject.checkout(head), cache, stdout);
  }

  fluxLocalBuild(stdout: string): Command {
    const { subject } = this;
    const args = ['build', 'all', '--enable-helm', subject.entry];
    return this.fluxLocal(args, subject.checkout(subject.base), stdout);
  }

  /** flux-local renders both trees whole: Kustomizations, then HelmReleases. */
  fluxLocalDiff(head: string, what: 'ks' | 'hr', stdout: string): Command {
    const { subject } = this;
    const orig = join(subject.checkout(subject.base), subject.entry);
    const args = ['diff', what, '-A', '--path', subject.entry, '--path-orig', orig];
    return this.fluxLocal(args, subject.checkout(head), stdout);
  }

  private fluxlens(args: string[], cache: string, stdout: string): Command {
    return {
      file: process.execPath,
      args: [...this.nodeFlags, ...this.tools.fluxlens.prefix, ...args],
      cwd: this.subject.repo,
      env: { ...this.#env, FLUXLENS_CACHE_DIR: cache, FLUXLENS_TOOLS_DIR: dirname(TOOLS_BIN) },
      stdout,
    };
  }

  private flate(args: string[], cwd: string, cache: string, stdout: string): Command {
    const common = ['--no-progress', '--log-level', 'error', '--cache-dir', cache];
    return {
      file: this.tools.flate ?? 'flate',
      args: [...args, ...common],
      cwd,
      env: { ...this.#env, XDG_CACHE_HOME: join(this.#env['HOME'] ?? cache, '.cache') },
      stdout,
    };
  }

  private fluxLocal(args: string[], cwd: string, stdout: string): Command {
    return { file: this.tools.fluxLocal ?? 'flux-local', args, cwd, env: { ...this.#env }, stdout };
  }
}

export function slug(text: string): string {
  return text.replace(/[^\w.-]+/g, '-').replace(/^-|-$/g, '');
}
