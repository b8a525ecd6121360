/**
 * Chart repositories and archives for tests, made by the real helm: `helm package`
 * from the project's own charts (test/fixtures/charts), `helm repo index`, `helm push`.
 */
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { ToolRunner } from '../../src/tool-runner.js';
import { projectRoot } from './paths.js';

export const fixtureCharts = join(projectRoot, 'test', 'fixtures', 'charts');

/** `helm package`, optionally overriding the version; returns the archive path. */
export async function packageChart(
  runner: ToolRunner,
  chartDir: string,
  outDir: string,
  version?: string,
): Promise<string> {
  mkdirSync(outDir, { recursive: true });
  const args = ['package', chartDir, '--destination', outDir];
  if (version !== undefined) args.push('--version', version);
  const { stdout } = await runner.run('helm', args);
  const path = /saved it to: (.+\.tgz)/.exec(stdout)?.[1];
  if (!path) throw new Error(`helm package printed no archive path: ${stdout}`);
  return path.trim();
}

/** A repository folder: one archive per version of `chart`, and its index.yaml. */
export async function makeChartRepository(
  runner: ToolRunner,
  options: { dir: string; chart: string; versions: readonly string[]; url?: string },
): Promise<void> {
  for (const version of options.versions) {
    await packageChart(runner, join(fixtureCharts, options.chart), options.dir, version);
  }
  const args = ['repo', 'index', options.dir];
  if (options.url !== undefined) args.push('--url', options.url);
  await runner.run('helm', args);
}

/** Copies fixture charts into `dir/charts/` (a GitRepository folder for tests). */
export function copyFixtureCharts(dir: string, names: readonly string[]): void {
  for (const name of names) {
    cpSync(join(fixtureCharts, name), join(dir, 'charts', name), { recursive: true });
  }
}

/** `helm push ARCHIVE oci://HOST/PATH --plain-http`; returns the digest helm printed. */
export async function pushChart(
  runner: ToolRunner,
  archive: string,
  ociBase: string,
): Promise<string> {
  const { stdout, stderr } = await runner.run('helm', ['push', archive, ociBase, '--plain-http']);
  const digest = /Digest:\s*(sha256:[0-9a-f]{64})/.exec(stdout + stderr)?.[1];
  if (!digest) throw new Error(`helm push printed no digest: ${stderr}`);
  return digest;
}

export interface TarEntry {
  name: string;
  data?: string;
  /** ustar type flag: '0' file (default), '2' symlink, '5' folder. */
  type?: string;
  linkname?: string;
}

/** A gzipped ustar archive written by hand, for archives helm would never make. */
export function craftChartArchive(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const data = Buffer.from(entry.data ?? '');
    const header = Buffer.alloc(512);
    header.write(entry.name, 0, 100, 'utf8');
    header.write('0000644\0', 100, 'latin1');
    header.write('0000000\0', 108, 'latin1');
    header.write('0000000\0', 116, 'latin1');
    header.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124, 'latin1');
    header.write('00000000000\0', 136, 'latin1');
    header.write('        ', 148, 'latin1');
    header.write(entry.type ?? '0', 156, 'latin1');
    header.write(entry.linkname ?? '', 157, 100, 'utf8');
    header.write('ustar\0' + '00', 257, 'latin1');
    const sum = header.reduce((a, b) => a + b, 0);
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    blocks.push(header, data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
