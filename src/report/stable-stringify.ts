/**
 * JSON text with every object's keys in sorted order (UTF-16 code unit order, as
 * `Array.prototype.sort`), so equal values always give identical bytes. JSON.stringify
 * cannot do this alone: it puts integer-like keys first whatever order they were added in.
 */

function quote(value: string): string {
  return JSON.stringify(value);
}

/** The text of `value`, or undefined where JSON.stringify would leave the member out. */
function write(
  value: unknown,
  indent: string,
  depth: number,
  seen: Set<object>,
): string | undefined {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('stableStringify: cannot serialise a BigInt');
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    default:
      break;
  }
  if (value === null) return 'null';
  const object = value as object;
  if (seen.has(object)) throw new TypeError('stableStringify: circular structure');
  seen.add(object);
  const open = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const close = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  const separator = indent === '' ? ',' : `,${open}`;
  let text: string;
  if (Array.isArray(object)) {
    const items = object.map((item: unknown) => write(item, indent, depth + 1, seen) ?? 'null');
    text = items.length === 0 ? '[]' : `[${open}${items.join(separator)}${close}]`;
  } else {
    const record = object as Record<string, unknown>;
    const members: string[] = [];
    for (const key of Object.keys(record).sort()) {
      const item = write(record[key], indent, depth + 1, seen);
      if (item !== undefined) members.push(`${quote(key)}:${indent === '' ? '' : ' '}${item}`);
    }
    text = members.length === 0 ? '{}' : `{${open}${members.join(separator)}${close}}`;
  }
  seen.delete(object);
  return text;
}

/**
 * Like `JSON.stringify(value, null, indent)` for plain data (no toJSON, no Map or Set), but
 * with sorted keys. Throws on cycles and BigInts, as JSON.stringify does.
 */
export function stableStringify(value: unknown, indent = ''): string {
  return write(value, indent, 0, new Set()) ?? 'null';
}
