/**
 * The scenarios and, for each, its contestants: a tool, the cache state it starts from
 * (set up untimed before every timed run) and the commands that are timed. Caches are
 * per contestant, so no contestant warms another's; "warm" is a copy of a cache filled
 * once by rendering the base, taken afresh before each run.
 */
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Commands, slug, type Installed } from './commands.js';
import { measure, type Command } from './measure.js';
import type { Subject } from './subjects.js';
import type { ToolName } from './tools.js';

export const SCENARIOS = ['cold', 'one-file', 'fan-out', 'chart-bump', 'no-op'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const SCENARIO_TITLES: Record<ScenarioName, string> = {
  cold: 'cold full render of the base (empty caches)',
  'one-file': 'one-file PR, base warm',
  'fan-out': 'shared-component fan-out PR, base warm',
  'chart-bump': 'chart bump PR, base warm',
  'no-op': 'no-op re-push: the one-file diff twice from empty caches',
};

export interface Phase {
  label: string;
  /** Run one after the other and timed as one (flux-local's diff is two commands). */
  commands: Command[];
  /** fluxlens's JSON report of the phase, whose timings are kept. */
  report?: string;
}

export interface Contestant {
  id: string;
  tool: ToolName;
  /** Puts the contestant's caches in the scenario's starting state; untimed. */
  prepare(): Promise<void>;
  phases: Phase[];
  /** Timed runs this contestant takes part in (the first N iterations); all when absent. */
  runs?: number;
}

export interface Scenario {
  name: ScenarioName;
  contestants: Contestant[];
}

export interface ScenarioOptions {
  nodeFlags: string[];
  /** Timed runs of flux-local, the slowest peer by far. */
  fluxLocalRuns: number;
  log: (line: string) => void;
}

type Start = 'empty' | 'warm';

/** Builds a subject's scenarios, sharing the warm caches between them. */
export class ScenarioBuilder {
  readonly #commands: Commands;
  readonly #warm = new Map<string, Promise<string>>();

  constructor(
    private readonly subject: Subject,
    work: string,
    private readonly tools: Installed,
    private readonly options: ScenarioOptions,
  ) {
    this.#commands = new Commands(subject, work, tools, options.nodeFlags);
  }

  build(name: ScenarioName): Scenario | undefined {
    if (name === 'cold') return { name, contestants: this.cold() };
    const head = this.subject.heads[name === 'no-op' ? 'one-file' : name];
    return head === undefined ? undefined : { name, contestants: this.diffs(name, head) };
  }

  private cold(): Contestant[] {
    const c = this.#commands;
    const base = { scenario: 'cold' as const, start: 'empty' as const, labels: ['render'] };
    const render = (id: string, noCache: boolean) =>
      this.contestant({ ...base, id, tool: 'fluxlens' }, (cache, out) => [
        c.fluxlensRender(cache, out, noCache),
      ]);
    const list = [render('fluxlens', false), render('fluxlens --no-cache', true)];
    if (this.tools.flate) {
      const spec = { ...base, id: 'flate build all', tool: 'flate' as const };
      list.push(this.contestant(spec, (cache, out) => [c.flateBuild(cache, out)]));
    }
    if (this.tools.fluxLocal) {
      const spec = { ...base, id: 'flux-local build all', tool: 'flux-local' as const };
      list.push(this.contestant(spec, (_cache, out) => [c.fluxLocalBuild(out)]));
    }
    return list;
  }

  /** A PR's diff: base warm, or (no-op) the same diff twice from empty caches. */
  private diffs(scenario: Exclude<ScenarioName, 'cold'>, head: string): Contestant[] {
    const c = this.#commands;
    const base =
      scenario === 'no-op'
        ? { scenario, start: 'empty' as const, labels: ['first', 'second'] }
        : { scenario, start: 'warm' as const, labels: ['diff'] };
    const fluxlens = (id: string, noCache: boolean) =>
      this.contestant({ ...base, id, tool: 'fluxlens' }, (cache, out) => [
        c.fluxlensDiff(head, cache, out, noCache),
      ]);
    const list = [fluxlens('fluxlens', false)];
    if (this.tools.flate) {
      const spec = { ...base, id: 'flate diff all', tool: 'flate' as const };
      list.push(this.contestant(spec, (cache, out) => [c.flateDiff(head, cache, out)]));
    }
    if (scenario !== 'one-file') return list;
    // The full two-sided render and flux-local, the costly rows, only where a target needs them.
    list.push(fluxlens('fluxlens --no-cache', true));
    if (this.tools.fluxLocal) {
      const spec = { ...base, id: 'flux-local diff ks+hr', tool: 'flux-local' as const };
      list.push(
        this.contestant(spec, (_cache, out) => [
          c.fluxLocalDiff(head, 'ks', `${out}-ks`),
          c.fluxLocalDiff(head, 'hr', `${out}-hr`),
        ]),
      );
    }
    return list;
  }

  private contestant(
    spec: { scenario: ScenarioName; id: string; tool: ToolName; start: Start; labels: string[] },
    commands: (cache: string, out: string) => Command[],
  ): Contestant {
    const { scenario, id, tool, start } = spec;
    const cache = join(this.#commands.folder('state', scenario), slug(id));
    const outDir = this.#commands.folder('out', scenario);
    const phases = spec.labels.map((label): Phase => {
      const out = join(outDir, `${slug(id)}-${label}`);
      const report = tool === 'fluxlens' && scenario !== 'cold' ? { report: `${out}.json` } : {};
      return { label, commands: commands(cache, out), ...report };
    });
    return {
      id,
      tool,
      phases,
      prepare: async () => {
        rmSync(cache, { recursive: true, force: true });
        mkdirSync(cache, { recursive: true });
        // A render with nothing to keep (every producer failed) leaves no cache folder.
        const warm = start === 'warm' && tool !== 'flux-local' ? await this.warm(tool) : undefined;
        if (warm !== undefined && existsSync(warm)) cpSync(warm, cache, { recursive: true });
      },
      ...(tool === 'flux-local' ? { runs: this.options.fluxLocalRuns } : {}),
    };
  }

  /** A cache filled by rendering the base once, per tool. */
  private warm(tool: ToolName): Promise<string> {
    let made = this.#warm.get(tool);
    if (made === undefined) {
      made = (async () => {
        const dir = join(this.#commands.folder('warm'), tool);
        const out = join(this.#commands.folder('warm'), `${tool}.out`);
        const command =
          tool === 'flate'
            ? this.#commands.flateBuild(dir, out)
            : this.#commands.fluxlensRender(dir, out, false);
        const result = await measure(command);
        // What did render is cached; the timed runs report the failures themselves.
        if (result.exitCode !== 0) {
          const first = result.stderrTail.split('\n')[0] ?? '';
          this.options.log(
            `  ${tool} failed to render the whole base (exit ${result.exitCode}): ${first}`,
          );
        }
        return dir;
      })();
      this.#warm.set(tool, made);
    }
    return made;
  }
}
