/**
 * Unpacks chart archives (.tgz) without a tar program: gunzip with an output cap, then a
 * small reader for what helm and other packagers write (ustar, pax `x` headers, GNU
 * long names). Like helm's loader it drops the top folder, so the chart lands directly
 * in `dest`. Entries are checked before anything is written: no absolute paths, no
 * `..`, no links or devices, bounded file count and total size.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { ChartContentError } from './chart-content-error.js';
import { ChartUnavailableError } from './chart-unavailable-error.js';

const gunzipAsync = promisify(gunzip);

export interface ArchiveLimits {
  /** Cap on the sum of file sizes once unpacked. */
  maxBytes: number;
  maxFiles?: number;
}

export interface ArchiveFile {
  /** Path inside the chart, top folder removed, `/`-separated. */
  path: string;
  data: Buffer;
}

const BLOCK = 512;
const DEFAULT_MAX_FILES = 10_000;

/**
 * The chart's files; throws ChartContentError on anything unsafe or malformed, and
 * ChartUnavailableError past fluxlens's own size and count bounds.
 */
export async function readChartArchive(
  archive: Buffer,
  limits: ArchiveLimits,
  what: string,
): Promise<ArchiveFile[]> {
  let tar: Buffer;
  try {
    // Headers and padding add at most a block per file on top of the contents.
    const maxOutputLength = limits.maxBytes + BLOCK * 2 * (limits.maxFiles ?? DEFAULT_MAX_FILES);
    tar = await gunzipAsync(archive, { maxOutputLength });
  } catch (err) {
    // Past fluxlens's bound the chart is one it will not judge; bad gzip fails Flux too.
    if (err instanceof RangeError) {
      throw new ChartUnavailableError(`${what}: the chart archive is too large once decompressed`, {
        cause: err,
      });
    }
    throw new ChartContentError(`${what}: the chart archive is not gzip data`, { cause: err });
  }
  return readTar(tar, limits, what);
}

/** Writes the files under `dest`, which must be a new, empty folder. */
export async function writeChartFiles(files: readonly ArchiveFile[], dest: string): Promise<void> {
  for (const file of files) {
    const target = join(dest, ...file.path.split('/'));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.data, { mode: 0o644 });
  }
}

interface Header {
  name: string;
  size: number;
  type: string;
}

interface Overrides {
  path?: string;
  size?: number;
}

function readTar(tar: Buffer, limits: ArchiveLimits, what: string): ArchiveFile[] {
  const fail = (detail: string) => new ChartContentError(`${what}: chart archive ${detail}`);
  const over = (detail: string) => new ChartUnavailableError(`${what}: chart archive ${detail}`);
  const files: ArchiveFile[] = [];
  let total = 0;
  let next: Overrides = {};
  for (let offset = 0; offset + BLOCK <= tar.length; ) {
    const block = tar.subarray(offset, offset + BLOCK);
    if (block.every((b) => b === 0)) break;
    const header = parseHeader(block, fail);
    const size = next.size ?? header.size;
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw fail('is truncated');
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (header.type === 'x') next = { ...next, ...parsePax(data, fail) };
    else if (header.type === 'L') next = { ...next, path: cString(data) };
    else if (header.type === 'g' || header.type === '5') next = {};
    else if (header.type === '0' || header.type === '\0' || header.type === '7') {
      const path = chartPath(next.path ?? header.name, fail);
      next = {};
      if (path === undefined) continue;
      total += size;
      if (total > limits.maxBytes) throw over(`holds more than ${limits.maxBytes} bytes`);
      if (files.length >= (limits.maxFiles ?? DEFAULT_MAX_FILES))
        throw over('holds too many files');
      files.push({ path, data: Buffer.from(data) });
    } else {
      throw fail(`holds '${next.path ?? header.name}', which is a link or special file`);
    }
  }
  if (!files.some((f) => f.path === 'Chart.yaml')) throw fail('has no Chart.yaml');
  return files;
}

function parseHeader(block: Buffer, fail: (d: string) => Error): Header {
  const stored = octal(block.subarray(148, 156));
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  if (stored !== sum) throw fail('has a corrupt header');
  const size = block[124]! & 0x80 ? NaN : octal(block.subarray(124, 136));
  if (!Number.isSafeInteger(size) || size < 0) throw fail('has an entry of unsupported size');
  const name = cString(block.subarray(0, 100));
  const isUstar = block.subarray(257, 262).toString('latin1') === 'ustar';
  const prefix = isUstar ? cString(block.subarray(345, 500)) : '';
  return {
    name: prefix ? `${prefix}/${name}` : name,
    size,
    type: String.fromCharCode(block[156] ?? 0),
  };
}

function octal(field: Buffer): number {
  const text = cString(field).trim();
  return text === '' ? 0 : /^[0-7]+$/.test(text) ? parseInt(text, 8) : NaN;
}

function cString(field: Buffer): string {
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? field.length : end).toString('utf8');
}

/** pax records: `LEN key=value\n`; only path and size matter here. */
function parsePax(data: Buffer, fail: (d: string) => Error): Overrides {
  const out: Overrides = {};
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const length = space === -1 ? NaN : Number(data.subarray(offset, space).toString('latin1'));
    if (!Number.isSafeInteger(length) || length <= 0 || offset + length > data.length) {
      throw fail('has a corrupt pax header');
    }
    const record = data.subarray(space + 1, offset + length - 1).toString('utf8');
    const eq = record.indexOf('=');
    const [key, value] = [record.slice(0, eq), record.slice(eq + 1)];
    if (key === 'path') out.path = value;
    if (key === 'size') out.size = Number(value);
    offset += length;
  }
  return out;
}

/**
 * helm's rule: drop the first path component; an entry at the top level other than a
 * folder is skipped, and a top-level Chart.yaml is an error. Undefined means skip.
 */
function chartPath(name: string, fail: (d: string) => Error): string | undefined {
  const parts = name.replaceAll('\\', '/').split('/');
  if (parts[0] === '') throw fail(`holds the absolute path '${name}'`);
  if (parts[0] === '..') throw fail(`holds the unsafe path '${name}'`);
  if (parts.length === 1 && parts[0] === 'Chart.yaml') {
    throw fail('has Chart.yaml outside the chart folder');
  }
  const rest = parts.slice(1).filter((p) => p !== '' && p !== '.');
  if (rest.some((p) => p === '..' || p.includes('\0') || /^[A-Za-z]:$/.test(p))) {
    throw fail(`holds the unsafe path '${name}'`);
  }
  return rest.length === 0 ? undefined : rest.join('/');
}
