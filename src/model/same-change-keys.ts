/**
 * When two changes are the same change in two objects, so a report can show one diff for
 * all of them: same apiVersion, kind and status, the same field changes, and the same
 * changed lines of the text diff. What is left out is only what says which object it is:
 * the diff's file headers and hunk line numbers, its context lines, and the object's own
 * `metadata.name` and `metadata.namespace` lines. Every changed value stays in, so two
 * changes that set different values are never the same.
 */
import { createHash } from 'node:crypto';
import type { ResourceChange } from './change.js';
import { producerKey } from './render.js';

const NAME_LINE = /^[+-] {2}(name|namespace): (["']?)(.*)\2$/;
const TOP_LEVEL_KEY = /^[ +-]([A-Za-z0-9_$"'][^:]*):/;

/** A diff's changed lines and hunk breaks, and which of them may name the object. */
interface ChangedLines {
  lines: string[];
  /** Lines under `metadata` that set a name or namespace: index, field, value. */
  identity: Array<{ index: number; field: string; value: string }>;
  /** Of `lines` as they are. */
  digest: string;
}

function digestOf(lines: readonly string[]): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\n');
  return hash.digest('base64');
}

/**
 * Which top-level key a line is under is only known from the top-level lines seen so far;
 * until one is seen (a hunk that starts deep in the object), no line is taken for the
 * object's own name.
 */
function changedLines(diff: string): ChangedLines {
  const lines: string[] = [];
  const identity: ChangedLines['identity'] = [];
  let top: string | undefined;
  let inHunks = false;
  for (const line of diff.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.startsWith('@@')) {
      inHunks = true;
      lines.push('@@');
      continue;
    }
    if (!inHunks || line === '') continue;
    const key = TOP_LEVEL_KEY.exec(line);
    if (key) top = key[1];
    const sign = line.charAt(0);
    if (sign !== '+' && sign !== '-' && sign !== '\\') continue;
    const name = top === 'metadata' ? NAME_LINE.exec(line) : null;
    if (name?.[1] && name[3] !== undefined) {
      identity.push({ index: lines.length, field: name[1], value: name[3] });
    }
    lines.push(line);
  }
  return { lines, identity, digest: digestOf(lines) };
}

/**
 * A function that gives two changes equal keys when they are the same change. It parses
 * each distinct diff text once, however many changes share it.
 */
export function sameChangeKeys(): (change: ResourceChange) => string {
  const parsed = new Map<string, ChangedLines>();
  return (change) => {
    let diff = parsed.get(change.diff);
    if (!diff) parsed.set(change.diff, (diff = changedLines(change.diff)));
    const own = diff.identity.filter(
      (at) => at.value === (at.field === 'name' ? change.name : change.namespace),
    );
    let digest = diff.digest;
    if (own.length > 0) {
      const lines = [...diff.lines];
      for (const at of own) lines[at.index] = `${lines[at.index]?.charAt(0)}<own ${at.field}>`;
      digest = digestOf(lines);
    }
    const moved =
      change.status === 'moved'
        ? [
            producerKey(change.producer),
            change.previousProducer && producerKey(change.previousProducer),
          ]
        : [];
    return JSON.stringify([
      change.apiVersion,
      change.kind,
      change.status,
      change.contentChanged,
      moved,
      change.fields.map((f) => [f.path, f.change]),
      digest,
    ]);
  };
}
