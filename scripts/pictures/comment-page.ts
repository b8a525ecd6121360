/**
 * fluxlens's Markdown report as a pull request shows it: rendered with marked (GitHub
 * Flavored Markdown, the HTML GitHub keeps in comments passed through) inside a page that
 * looks like a PR timeline comment. The styles are written here, GitHub-like in spirit:
 * system fonts, bordered comment box, tables, code, diff blocks and details/summary.
 */
import { Marked, type Tokens } from 'marked';

const CSS = `
* { box-sizing: border-box; }
body {
  margin: 0; padding: 24px 32px 32px; background: #ffffff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, "DejaVu Sans", sans-serif;
}
.pr-title { margin: 0 0 4px; font-size: 26px; font-weight: 400; }
.pr-meta { margin: 0 0 20px; color: #59636e; }
.pr-meta .state {
  display: inline-block; margin-right: 8px; padding: 2px 12px; border-radius: 999px;
  background: #1f883d; color: #ffffff; font-weight: 600;
}
.timeline { display: flex; gap: 16px; align-items: flex-start; }
.avatar {
  flex: none; width: 40px; height: 40px; border-radius: 8px; background: #0b3d6e;
  color: #ffffff; font-weight: 700; font-size: 15px; display: grid; place-items: center;
}
.comment { flex: 1; min-width: 0; border: 1px solid #d1d9e0; border-radius: 6px; }
.comment-header {
  padding: 8px 16px; background: #f6f8fa; border-bottom: 1px solid #d1d9e0;
  border-radius: 6px 6px 0 0; color: #59636e;
}
.comment-header strong { color: #1f2328; }
.comment-header .bot {
  margin: 0 4px; padding: 0 6px; border: 1px solid #d1d9e0; border-radius: 999px;
  font-size: 12px; font-weight: 500;
}
.comment-body { padding: 16px; overflow-wrap: break-word; }
.comment-body > :first-child { margin-top: 0; }
.comment-body > :last-child { margin-bottom: 0; }
h1, h2, h3, h4 { margin: 24px 0 16px; font-weight: 600; line-height: 1.25; }
h3 { font-size: 1.25em; }
h4 { font-size: 1em; }
p, ul, ol, table, pre, details { margin: 0 0 16px; }
ul, ol { padding-left: 2em; }
li + li { margin-top: 4px; }
a { color: #0969da; text-decoration: none; }
code, pre {
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace;
}
code { padding: 0.2em 0.4em; border-radius: 6px; background: #eff1f3; font-size: 85%; }
pre {
  padding: 16px; border-radius: 6px; background: #f6f8fa; font-size: 85%;
  line-height: 1.45; overflow: auto;
}
pre code { padding: 0; background: none; font-size: 100%; }
pre .add { color: #116329; background: #e6ffec; }
pre .del { color: #82071e; background: #ffebe9; }
pre .hunk { color: #6639ba; }
pre .file { color: #59636e; font-weight: 600; }
table { border-collapse: collapse; display: block; width: max-content; max-width: 100%; }
th, td { padding: 6px 13px; border: 1px solid #d1d9e0; }
th { font-weight: 600; background: #f6f8fa; }
tr:nth-child(2n) td { background: #f6f8fa; }
details > summary { cursor: pointer; display: list-item; }
details details { margin: 8px 0 8px 16px; }
details[open] > summary { margin-bottom: 8px; }
`;

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** How GitHub colours a line of a fenced `diff` block. */
function lineKind(line: string): string | undefined {
  if (/^(\+\+\+|---)( |$)/.test(line)) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return undefined;
}

/** A fenced `diff` block with each line classed by lineKind; other code as it is. */
function codeBlock({ text, lang }: Tokens.Code): string {
  if (lang !== 'diff') return `<pre><code>${escapeHtml(text)}</code></pre>\n`;
  const lines = text.split('\n').map((line) => {
    const kind = lineKind(line);
    const html = escapeHtml(line);
    return kind === undefined ? html : `<span class="${kind}">${html}</span>`;
  });
  return `<pre><code class="language-diff">${lines.join('\n')}</code></pre>\n`;
}

const markdown = new Marked({ gfm: true, renderer: { code: codeBlock } });

export interface CommentPage {
  /** The pull request's title (the PR branch's commit subject). */
  title: string;
  /** The branch the pull request merges into, and the one it comes from. */
  base: string;
  head: string;
  /** fluxlens's Markdown report, as `fluxlens diff --format markdown` prints it. */
  markdown: string;
}

/** A self-contained page (no script, nothing loaded) showing the report as a PR comment. */
export function commentPage(page: CommentPage): string {
  const body = markdown.parse(page.markdown, { async: false });
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    `<title>${escapeHtml(page.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1 class="pr-title">${escapeHtml(page.title)}</h1>`,
    `<p class="pr-meta"><span class="state">Open</span>wants to merge <code>${escapeHtml(page.head)}</code> into <code>${escapeHtml(page.base)}</code></p>`,
    '<div class="timeline">',
    '<div class="avatar" aria-hidden="true">fl</div>',
    '<article class="comment">',
    '<div class="comment-header"><strong>fluxlens</strong><span class="bot">bot</span> commented</div>',
    `<div class="comment-body">${body}</div>`,
    '</article>',
    '</div>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
