import { describe, expect, it } from 'vitest';
import { clipText } from '../../../src/report/clip-text.js';
import {
  escapeMarkdown,
  fenceFor,
  inlineCode,
  tableCode,
} from '../../../src/report/escape-markdown.js';

describe('inlineCode', () => {
  it.each([
    ['wraps a plain name in single backticks', 'web', '`web`'],
    ['uses a longer delimiter than a backtick run inside', 'a`b``c', '```a`b``c```'],
    ['pads a name that starts with a backtick', '`web', '`` `web ``'],
    ['pads a name that starts with a space, as one padding space is stripped', ' web', '`  web `'],
    ['keeps HTML literal inside code', '<img>', '`<img>`'],
    ['turns a newline into a space so the line stays whole', 'a\nb', '`a b`'],
    ['shows an empty name as a space', '', '` `'],
  ])('%s', (_behaviour, text, expected) => {
    expect(inlineCode(text)).toBe(expected);
  });

  it('escapes pipes in a table cell', () => {
    expect(tableCode('a|b')).toBe('`a\\|b`');
  });
});

describe('escapeMarkdown', () => {
  it.each([
    ['leaves plain words alone', 'Deletes a PVC', 'Deletes a PVC'],
    ['escapes emphasis and code', '*a* _b_ `c`', '\\*a\\* \\_b\\_ \\`c\\`'],
    ['escapes links and pipes', '[x](y) | z', '\\[x\\](y) \\| z'],
    ['turns HTML into entities', '<script>&', '&lt;script&gt;&amp;'],
    ['keeps a digest from mentioning a user', 'nginx@sha256:ab', 'nginx@&#8288;sha256:ab'],
    ['keeps a number from linking an issue', 'see #12', 'see #&#8288;12'],
    ['leaves a lone @ alone', 'a @ b', 'a @ b'],
  ])('%s', (_behaviour, text, expected) => {
    expect(escapeMarkdown(text)).toBe(expected);
  });
});

describe('fenceFor', () => {
  it.each([
    ['uses three backticks for a plain diff', '+a: 1', '```'],
    ['outgrows a fence inside the diff', '+```\n-````', '`````'],
  ])('%s', (_behaviour, text, expected) => {
    expect(fenceFor(text)).toBe(expected);
  });
});

describe('clipText', () => {
  it('never splits a surrogate pair', () => {
    expect(clipText('ab😀cd', 4)).toBe('ab…');
    expect(clipText('abc', 3)).toBe('abc');
  });
});
