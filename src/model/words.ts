/** Counted nouns for messages and reports, so every step words a count the same way. */

/** "1 object", "3 objects"; `many` for nouns that do not take an s. */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
