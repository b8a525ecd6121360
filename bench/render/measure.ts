/**
 * Runs one command and measures it: wall time from spawn to exit, and the peak resident
 * memory of its whole process tree (the process and every descendant alive at a sample),
 * sampled from /proc every 50 ms. RSS counts pages shared between processes once per
 * process, and a child that lives less than a sample period can be missed: the figure
 * is what the tree held at its busiest sample, close to what a container limit sees.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';

export interface Command {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  /** Where standard output goes (a file); standard error goes to `${stdout}.err`. */
  stdout: string;
}

export interface Measurement {
  ms: number;
  peakBytes: number;
  exitCode: number | null;
  /** The last lines of standard error, for a failed run's message. */
  stderrTail: string;
}

const PAGE = 4096;
const SAMPLE_MS = 50;
const buffer = Buffer.alloc(1024);
let running: ChildProcess | undefined;

/** Kills the command under way (its whole process group), for Ctrl-C. */
export function killRunning(): void {
  if (running?.pid !== undefined) {
    try {
      process.kill(-running.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function readSmall(path: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return buffer.toString('latin1', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** Resident bytes of `root` and its descendants, now. */
export function treeRss(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const code = name.charCodeAt(0);
    if (code < 48 || code > 57) continue;
    const stat = readSmall(`/proc/${name}/stat`);
    // Fields after the command name, which may hold spaces and parentheses.
    const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
    const parent = Number(fields?.[1]);
    if (!Number.isInteger(parent)) continue;
    const list = children.get(parent) ?? [];
    list.push(Number(name));
    children.set(parent, list);
  }
  let bytes = 0;
  const pending = [root];
  for (let pid = pending.pop(); pid !== undefined; pid = pending.pop()) {
    const statm = readSmall(`/proc/${pid}/statm`);
    bytes += Number(statm?.split(' ')[1] ?? 0) * PAGE;
    pending.push(...(children.get(pid) ?? []));
  }
  return bytes;
}

export async function measure(command: Command): Promise<Measurement> {
  const out = openSync(command.stdout, 'w');
  const err = openSync(`${command.stdout}.err`, 'w');
  const start = performance.now();
  let peakBytes = 0;
  try {
    const child = spawn(command.file, command.args, {
      cwd: command.cwd,
      env: command.env,
      stdio: ['ignore', out, err],
      // Its own process group, so Ctrl-C can end the tree and nothing else.
      detached: true,
    });
    running = child;
    const sample = () => {
      if (child.pid !== undefined) peakBytes = Math.max(peakBytes, treeRss(child.pid));
    };
    const timer = setInterval(sample, SAMPLE_MS);
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      child.once('error', reject);
      child.once('spawn', sample);
      child.once('exit', (code, signal) => resolve(code ?? (signal ? null : 0)));
    }).finally(() => clearInterval(timer));
    const ms = performance.now() - start;
    return { ms, peakBytes, exitCode, stderrTail: tail(`${command.stdout}.err`) };
  } finally {
    running = undefined;
    closeSync(out);
    closeSync(err);
  }
}

function tail(file: string): string {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').filter(Boolean).slice(-8).join('\n');
}
