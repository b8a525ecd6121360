/** What the figures were measured on: the machine, its load, and every tool's version. */
import { readFileSync, realpathSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { git } from './write-fleet.js';
import { findTool, ROOT, toolVersion } from './tools.js';

export interface Machine {
  nproc: number;
  cpu: string;
  memoryBytes: number;
  /** 1, 5 and 15-minute load averages when the run started and when it ended. */
  loadStart: number[];
  loadEnd?: number[];
  versions: Record<string, string>;
  fluxlens: { commit: string; uncommittedChanges: boolean; launcher: string };
}

export function describeMachine(launcher: string): Machine {
  const version = (name: string, args: string[]) => {
    const file = findTool(name);
    return file === undefined ? 'not installed' : toolVersion(file, args);
  };
  const status = git(ROOT, 'status', '--porcelain', '--untracked-files=no');
  return {
    nproc: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    loadStart: loadavg().map(round),
    versions: {
      node: process.version,
      kustomize: version('kustomize', ['version']),
      helm: version('helm', ['version', '--short']),
      git: version('git', ['--version']),
      flate: version('flate', ['--version']),
      'flux-local': fluxLocalVersion(),
    },
    fluxlens: {
      commit: git(ROOT, 'rev-parse', 'HEAD'),
      uncommittedChanges: status !== '',
      launcher,
    },
  };
}

/** flux-local prints no version: ask its Python for the installed package's. */
function fluxLocalVersion(): string {
  const file = findTool('flux-local');
  if (file === undefined) return 'not installed';
  const python = /^#!(\S+)/.exec(readFileSync(realpathSync(file), 'utf8').slice(0, 200))?.[1];
  if (python === undefined) return 'unknown';
  const code = "import importlib.metadata as m; print(m.version('flux-local'))";
  return toolVersion(python, ['-c', code]);
}

export function finishMachine(machine: Machine): void {
  machine.loadEnd = loadavg().map(round);
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
