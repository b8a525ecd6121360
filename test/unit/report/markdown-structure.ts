/**
 * A small reader of the Markdown our reports produce: which code fences open and close
 * (CommonMark's rule: a closing fence is at least as long as the opening one) and whether
 * every `<details>` outside a fence is closed, never closed before it opens.
 */
export interface MarkdownStructure {
  /** Per fence length: [opened, closed]. */
  fences: Map<number, [number, number]>;
  /** A fence still open at the end of the text. */
  openFence: boolean;
  detailsOpened: number;
  detailsClosed: number;
  /** The `<details>` depth dropped below zero somewhere. */
  closedBeforeOpened: boolean;
}

export function markdownStructure(markdown: string): MarkdownStructure {
  const fences = new Map<number, [number, number]>();
  let fence = 0;
  let depth = 0;
  const out = { detailsOpened: 0, detailsClosed: 0, closedBeforeOpened: false };
  for (const line of markdown.split('\n')) {
    if (fence > 0) {
      const close = /^ {0,3}(`+)\s*$/.exec(line);
      if (close?.[1] && close[1].length >= fence) {
        const entry = fences.get(fence) ?? [0, 0];
        entry[1] += 1;
        fences.set(fence, entry);
        fence = 0;
      }
      continue;
    }
    const open = /^ {0,3}(`{3,})[^`]*$/.exec(line);
    if (open?.[1]) {
      fence = open[1].length;
      const entry = fences.get(fence) ?? [0, 0];
      entry[0] += 1;
      fences.set(fence, entry);
      continue;
    }
    for (const tag of line.match(/<\/?details\b/g) ?? []) {
      if (tag.startsWith('</')) {
        out.detailsClosed += 1;
        depth -= 1;
        if (depth < 0) out.closedBeforeOpened = true;
      } else {
        out.detailsOpened += 1;
        depth += 1;
      }
    }
  }
  return { fences, openFence: fence > 0, ...out };
}

/** Balanced: every fence closed with its own length, every `<details>` closed in order. */
export function expectBalanced(markdown: string): void {
  const s = markdownStructure(markdown);
  const unbalanced = [...s.fences].filter(([, [opened, closed]]) => opened !== closed);
  if (s.openFence || unbalanced.length > 0) {
    throw new Error(`unbalanced code fences: ${JSON.stringify([...s.fences])}`);
  }
  if (s.closedBeforeOpened || s.detailsOpened !== s.detailsClosed) {
    throw new Error(`unbalanced <details>: ${s.detailsOpened} opened, ${s.detailsClosed} closed`);
  }
}
