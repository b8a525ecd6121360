/** What an MCP tool answers is bounded, and says when it was cut. */
import { describe, expect, it } from 'vitest';
import { boundedText, MAX_TEXT_CHARS } from '../../../src/mcp/bounded-text.js';

describe('a tool answer', () => {
  it('is returned whole up to the limit', () => {
    const text = 'x'.repeat(MAX_TEXT_CHARS);
    expect(boundedText(text)).toBe(text);
  });

  it('is cut at a line past the limit and says how much was left out', () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    // The first three lines are 20 characters with their newlines; the fourth would pass 22.
    const cut = boundedText(lines, 22);
    expect(cut).toBe(
      `line 0\nline 1\nline 2\n[truncated: ${lines.length - 20} of ${lines.length} characters left out]\n`,
    );
  });

  it('is cut at the limit when no line ends before it', () => {
    expect(boundedText('y'.repeat(50), 10)).toBe(
      `${'y'.repeat(10)}\n[truncated: 40 of 50 characters left out]\n`,
    );
  });
});
