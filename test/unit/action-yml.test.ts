/**
 * action.yml and `fluxlens action` agree: every input reaches the command, every output is
 * one the command writes, every script a step runs is there, and the tools it downloads are
 * the versions fluxlens pins, with their published digests.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ACTION_OUTPUTS } from '../../src/cli/action-command.js';
import { ACTION_INPUT_VARIABLES } from '../../src/cli/action-context.js';
import { USAGE } from '../../src/cli/usage.js';
import { projectRoot } from '../support/paths.js';

const StepSchema = z.object({
  id: z.string().optional(),
  name: z.string(),
  uses: z.string().optional(),
  run: z.string().optional(),
  shell: z.string().optional(),
  if: z.string().optional(),
  env: z.record(z.string(), z.string()).optional(),
  with: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});

const ActionSchema = z.object({
  name: z.string(),
  description: z.string(),
  inputs: z.record(z.string(), z.object({ description: z.string(), default: z.string() })),
  outputs: z.record(z.string(), z.object({ description: z.string(), value: z.string() })),
  runs: z.object({ using: z.literal('composite'), steps: z.array(StepSchema) }),
});

const action = ActionSchema.parse(parse(readFileSync(join(projectRoot, 'action.yml'), 'utf8')));
const steps = action.runs.steps;
const review = steps.find((s) => s.id === 'review');
const inputsIn = (text: string) => [...text.matchAll(/\binputs\.([\w-]+)/g)].map((m) => m[1]);
const stepText = (s: z.infer<typeof StepSchema>) =>
  JSON.stringify([s.env ?? {}, s.with ?? {}, s.run ?? '', s.if ?? '']);

describe('action.yml', () => {
  it('passes every input the command reads, and only those, to the review step', () => {
    expect(review?.run).toBe('node "$GITHUB_ACTION_PATH/bin/fluxlens.js" action');
    const passed = Object.keys(review?.env ?? {}).filter((k) => k.startsWith('INPUT_'));
    expect(passed.sort()).toEqual([...ACTION_INPUT_VARIABLES].sort());
    for (const variable of passed) {
      // INPUT_FAIL_ON carries inputs.fail-on: the runner's own naming, with `_` for `-`.
      const input = variable.slice('INPUT_'.length).toLowerCase().replace(/_/g, '-');
      expect(review?.env?.[variable]).toBe(`\${{ inputs.${input} }}`);
    }
  });

  it("names in fluxlens action's help every input variable the command reads", () => {
    for (const variable of ACTION_INPUT_VARIABLES) expect(USAGE).toContain(variable);
  });

  it('uses every input it declares, and declares every input it uses', () => {
    const used = new Set(steps.flatMap((s) => inputsIn(stepText(s))));
    expect([...used].sort()).toEqual(Object.keys(action.inputs).sort());
  });

  it("declares exactly the outputs the command writes, from the review step's", () => {
    expect(Object.keys(action.outputs).sort()).toEqual([...ACTION_OUTPUTS].sort());
    for (const [name, output] of Object.entries(action.outputs)) {
      expect(output.value).toBe(`\${{ steps.review.outputs.${name} }}`);
    }
  });

  it('runs only scripts that exist and are executable, in bash', () => {
    const runs = steps.filter((s) => s.run !== undefined);
    expect(runs.length).toBeGreaterThan(0);
    for (const step of runs) {
      expect(step.shell).toBe('bash');
      const files = [...(step.run ?? '').matchAll(/\$GITHUB_ACTION_PATH\/([\w./-]+)/g)];
      expect(files.length, step.name).toBeGreaterThan(0);
      for (const [, file = ''] of files) {
        const path = join(projectRoot, file);
        expect(existsSync(path), file).toBe(true);
        if (file.startsWith('scripts/')) accessSync(path, constants.X_OK);
      }
    }
  });

  it('runs fluxlens on the Node major it is tested on (scripts/tool-versions.sh)', () => {
    const pins = readFileSync(join(projectRoot, 'scripts/tool-versions.sh'), 'utf8');
    const major = /^NODE_VERSION=(\d+)\./m.exec(pins)?.[1];
    const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(major).toBeDefined();
    expect(String(setup?.with?.['node-version'])).toBe(major);
  });

  it('with warm-cache only builds and caches fluxlens, from a lookup, and reviews nothing', () => {
    const warm = "inputs.warm-cache != 'true'";
    const running = steps.filter((s) => !(s.if ?? '').includes(warm)).map((s) => s.name);
    expect(running).toEqual([
      'Set up Node.js',
      'Cache key of the fluxlens build',
      'Restore the fluxlens build',
      'Build fluxlens',
      'Save the fluxlens build',
    ]);
    const restore = steps.find((s) => s.id === 'build-cache');
    expect(restore?.with?.['lookup-only']).toBe("${{ inputs.warm-cache == 'true' }}");
    // The key names the build alone (sources, lockfile, runner, Node): never the event's ref,
    // so the default branch's cache is the one every pull request restores.
    const key = steps.find((s) => s.id === 'build-key');
    expect(stepText(key ?? { name: '' })).not.toMatch(/github\.(ref|head_ref|event)/);
  });

  it('pins the actions it uses to a major version', () => {
    const uses = steps.flatMap((s) => (s.uses === undefined ? [] : [s.uses]));
    expect(uses.length).toBeGreaterThan(0);
    for (const ref of uses) expect(ref).toMatch(/^actions\/[\w/-]+@v\d+$/);
  });
});

describe("the README's workflows", () => {
  const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## GitHub Action'), readme.indexOf('## Image'));
  const workflows = [...section.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) =>
    z
      .object({ jobs: z.record(z.string(), z.object({ steps: z.array(z.unknown()) })) })
      .parse(parse(m[1] ?? '')),
  );
  const uses = workflows
    .flatMap((w) => Object.values(w.jobs).flatMap((j) => j.steps))
    .map((step) =>
      z
        .object({ uses: z.string(), with: z.record(z.string(), z.unknown()).optional() })
        .safeParse(step),
    )
    .flatMap((r) => (r.success && r.data.uses.startsWith('fluxlens/fluxlens@') ? [r.data] : []));

  it('give the Action only inputs it declares, and read only outputs it writes', () => {
    expect(uses.length).toBe(2);
    for (const step of uses) {
      for (const input of Object.keys(step.with ?? {})) expect(action.inputs).toHaveProperty(input);
    }
    const read = [...section.matchAll(/steps\.fluxlens\.outputs\.([\w-]+)/g)].map((m) => m[1]);
    expect(read.length).toBeGreaterThan(0);
    for (const output of read) expect(action.outputs).toHaveProperty(output ?? '');
  });
});

describe("the action's tool downloads", () => {
  const script = readFileSync(join(projectRoot, 'scripts/action-install-tools'), 'utf8');
  // The pins: scripts/tool-versions.sh where it exists, else scripts/install-tools's own block.
  const pins = ['scripts/tool-versions.sh', 'scripts/install-tools']
    .map((f) => join(projectRoot, f))
    .filter((f) => existsSync(f))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const pinned = (name: string) => new RegExp(`^${name}=(\\S+)$`, 'm').exec(pins)?.[1];

  it.each([
    ['kustomize', 'KUSTOMIZE'],
    ['helm', 'HELM'],
  ])('installs the pinned %s, with a digest for each Linux runner', (tool, prefix) => {
    const version = pinned(`${prefix}_VERSION`);
    expect(version).toMatch(/^v\d+\.\d+\.\d+$/);
    expect(script).toContain(`PINNED_${prefix}=${version}\n`);
    for (const arch of ['amd64', 'arm64']) {
      const digest = new RegExp(`\\[${tool}-${version}-linux-${arch}\\]=([0-9a-f]{64})$`, 'm').exec(
        script,
      )?.[1];
      expect(digest, `${tool} ${arch}`).toMatch(/^[0-9a-f]{64}$/);
      // Where the shared pins carry digests too, both say the same.
      const shared = pinned(`${prefix}_SHA256_LINUX_${arch.toUpperCase()}`);
      if (shared !== undefined) expect(digest).toBe(shared);
    }
  });
});
