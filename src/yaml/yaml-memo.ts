/**
 * Parses of repository files, kept by their text. Both revisions of a review, and the
 * reviews a worker runs one after another, read mostly the same files, and parsing YAML
 * costs many times what copying its result does. Every caller gets its own copy, so
 * nothing one of them changes reaches the next.
 */
import { parseDocuments, type ParseResult } from './yaml.js';

/** Texts longer than this are parsed every time: rendered output, not a file someone wrote. */
const MAX_TEXT_LENGTH = 256 * 1024;
/** The kept texts' total length; their parses take a few times that in memory. */
const MAX_KEPT_LENGTH = 8 * 1024 * 1024;

class ParseMemo {
  readonly #kept = new Map<string, ParseResult>();
  #length = 0;

  constructor(readonly maxLength: number) {}

  get(text: string): ParseResult | undefined {
    const kept = this.#kept.get(text);
    if (kept === undefined) return undefined;
    // Most recently used last: eviction takes from the front.
    this.#kept.delete(text);
    this.#kept.set(text, kept);
    return kept;
  }

  set(text: string, result: ParseResult): void {
    if (this.#kept.has(text)) return;
    this.#kept.set(text, result);
    this.#length += text.length;
    for (const oldest of this.#kept.keys()) {
      if (this.#length <= this.maxLength) break;
      this.#kept.delete(oldest);
      this.#length -= oldest.length;
    }
  }
}

const memo = new ParseMemo(MAX_KEPT_LENGTH);

/** parseDocuments for a file of a repository or chart, from the memo when its text was seen. */
export function parseFileDocuments(text: string): ParseResult {
  if (text.length > MAX_TEXT_LENGTH) return parseDocuments(text);
  const kept = memo.get(text);
  if (kept !== undefined) return structuredClone(kept);
  const result = parseDocuments(text);
  memo.set(text, structuredClone(result));
  return result;
}
