/**
 * The README's synopsis of each command and the CLI's --help say the same thing, and every
 * flag either mentions is one the command accepts.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RENDER_OPTIONS } from '../../src/cli/flags.js';
import { main } from '../../src/cli/index.js';
import { USAGE } from '../../src/cli/usage.js';
import { projectRoot } from '../support/paths.js';

const readme = readFileSync(join(projectRoot, 'README.md'), 'utf8');

/** The fenced synopsis under "## `fluxlens <command>`", without `npx` and line breaks. */
function readmeSynopsis(command: string): string {
  const section = readme.split(`## \`fluxlens ${command}\``)[1] ?? '';
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.replace(/^npx /, '').replace(/\\\n/g, ' ').replace(/\s+/g, ' ').trim();
}

/** The synopsis lines of a command in USAGE: from `fluxlens <command>` to its first option. */
function usageSynopsis(command: string): string {
  const start = USAGE.indexOf(`\nfluxlens ${command} `);
  const end = USAGE.indexOf('\n  --', start);
  return USAGE.slice(start, end).replace(/\s+/g, ' ').trim();
}

const flagsOf = (text: string) => new Set(text.match(/--[a-z][a-z-]+/g) ?? []);

describe('the CLI help and the README', () => {
  it.each(['diff', 'render'])('show the same synopsis for %s', (command) => {
    expect(readmeSynopsis(command)).not.toBe('');
    expect(readmeSynopsis(command)).toBe(usageSynopsis(command));
  });

  it('mention only flags the CLI accepts, and the help mentions every render flag', () => {
    const known = new Set([
      ...Object.keys(RENDER_OPTIONS).map((f) => `--${f}`),
      ...['--repo', '--rev', '--path', '--output', '--base', '--head', '--format', '--fail-on'],
      '--version',
    ]);
    const section = readme.slice(readme.indexOf('## `fluxlens diff`'), readme.indexOf('## How'));
    expect([...flagsOf(section)].filter((f) => !known.has(f))).toEqual([]);
    expect([...flagsOf(USAGE)].filter((f) => !known.has(f))).toEqual([]);
    expect([...known].filter((f) => !flagsOf(USAGE).has(f))).toEqual([]);
  });
});

describe('fluxlens --version', () => {
  const manifest = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
    version: string;
  };

  it.each(['--version', '-V'])("prints package.json's version for %s and exits 0", async (flag) => {
    let stdout = '';
    let stderr = '';
    const code = await main([flag], {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      isTTY: false,
      stdoutIsTTY: false,
      env: {},
    });
    expect({ code, stdout, stderr }).toEqual({
      code: 0,
      stdout: `${manifest.version}\n`,
      stderr: '',
    });
  });

  it('is in the help', () => {
    expect(USAGE).toContain('fluxlens --version');
  });
});
