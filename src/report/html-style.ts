/** The HTML report's stylesheet, inlined into the page (allowed by its hash in the CSP). */
export const HTML_STYLE = String.raw`
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --border: #d1d9e0; --panel: #f6f8fa;
  --select: #ddf4ff; --add-bg: #dafbe1; --del-bg: #ffebe9; --hunk-bg: #ddf4ff;
  --danger: #cf222e; --caution: #9a6700; --info: #0969da; --none: #1a7f37;
  --added: #1a7f37; --removed: #cf222e; --changed: #9a6700; --moved: #8250df;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --border: #3d444d; --panel: #151b23;
    --select: #1f2f4a; --add-bg: #12361f; --del-bg: #3c1618; --hunk-bg: #172a45;
    --danger: #f85149; --caution: #d29922; --info: #4493f8; --none: #3fb950;
    --added: #3fb950; --removed: #f85149; --changed: #d29922; --moved: #ab7df8;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main, footer { padding: 12px 24px; }
header { border-bottom: 1px solid var(--border); border-left: 6px solid var(--none); }
header.verdict-info { border-left-color: var(--info); }
header.verdict-caution { border-left-color: var(--caution); }
header.verdict-danger { border-left-color: var(--danger); }
h1 { font-size: 20px; margin: 4px 0; }
h2 { font-size: 16px; margin: 20px 0 8px; }
h3 { font-size: 15px; margin: 0 0 8px; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12px; }
.brand { margin: 0; color: var(--muted); font-weight: 600; }
.revs, .routine, footer { color: var(--muted); margin: 4px 0; }
.summary { display: flex; flex-wrap: wrap; gap: 4px 16px; list-style: none; margin: 4px 0; padding: 0; }
.level, .badge { display: inline-block; border-radius: 999px; padding: 0 8px; font-size: 12px;
  font-weight: 600; line-height: 20px; border: 1px solid currentColor; white-space: nowrap; }
.level-none { color: var(--none); }
.level-info { color: var(--info); }
.level-caution { color: var(--caution); }
.level-danger { color: var(--danger); }
.badge-added { color: var(--added); }
.badge-removed { color: var(--removed); }
.badge-changed { color: var(--changed); }
.badge-moved { color: var(--moved); }
.findings, .errors { list-style: none; margin: 0; padding: 0; }
.findings li, .errors li { border: 1px solid var(--border); border-radius: 6px; padding: 8px 12px;
  margin-bottom: 6px; overflow-wrap: anywhere; }
.findings .finding-danger { border-left: 4px solid var(--danger); }
.findings .finding-caution { border-left: 4px solid var(--caution); }
.findings .finding-info { border-left: 4px solid var(--info); }
.finding p, .errors p { margin: 4px 0 0; }
.where { color: var(--muted); font-size: 12px; }
button { font: inherit; color: inherit; }
.show, .layout button { background: var(--panel); border: 1px solid var(--border); border-radius: 6px;
  padding: 2px 10px; cursor: pointer; margin-top: 6px; }
.layout { display: inline-flex; gap: 0; margin: 8px 0; }
.layout button { margin: 0; border-radius: 0; }
.layout button:first-child { border-radius: 6px 0 0 6px; }
.layout button:last-child { border-radius: 0 6px 6px 0; border-left: 0; }
.layout button[aria-pressed="true"] { background: var(--select); font-weight: 600; }
.panes { display: grid; grid-template-columns: minmax(300px, 2fr) 5fr; gap: 16px; align-items: start; }
@media (max-width: 900px) { .panes { grid-template-columns: 1fr; } }
.tree, .detail { border: 1px solid var(--border); border-radius: 6px; padding: 8px; min-width: 0; }
.tree ul { list-style: none; margin: 0; padding-left: 14px; }
.tree > ul { padding-left: 0; }
.tree button { display: flex; align-items: baseline; gap: 6px; width: 100%;
  text-align: left; background: none; border: 0; border-radius: 6px; padding: 3px 6px; cursor: pointer;
  overflow-wrap: break-word; }
.tree button:hover { background: var(--panel); }
.tree button[aria-current="true"] { background: var(--select); font-weight: 600; }
.tree .twisty { width: 1em; flex: none; color: var(--muted); }
.tree .twisty::before { content: "\25B8"; }
.tree button[aria-expanded="true"] .twisty::before { content: "\25BE"; }
.tree .node-label { flex: 1 1 0; min-width: 0; }
.tree .same .node-label { font-style: italic; }
.tree .badge, .tree .level, .tree .counts { flex: none; }
.tree .empty, .placeholder { color: var(--muted); padding: 3px 6px; margin: 0; }
.count { font-size: 12px; font-weight: 600; }
.count-added { color: var(--added); }
.count-removed { color: var(--removed); }
.count-changed { color: var(--changed); }
.count-moved { color: var(--moved); }
.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
.meta dt { color: var(--muted); }
.meta dd { margin: 0; overflow-wrap: anywhere; }
.meta ul { margin: 0; padding-left: 18px; }
.diff { overflow-x: auto; border: 1px solid var(--border); border-radius: 6px; }
.diff-table { width: 100%; border-collapse: collapse; table-layout: fixed;
  font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.diff-table th { text-align: left; font-weight: 600; padding: 4px 8px; background: var(--panel);
  border-bottom: 1px solid var(--border); overflow-wrap: anywhere; }
.diff-table td { padding: 0 8px; vertical-align: top; white-space: pre-wrap; overflow-wrap: anywhere; }
.diff-table col.num { width: 4.5em; }
.diff-table td.num { text-align: right; color: var(--muted); user-select: none; }
.diff-table .add { background: var(--add-bg); }
.diff-table .del { background: var(--del-bg); }
.diff-table .hunk td { background: var(--hunk-bg); color: var(--muted); }
.diff-table .meta-line td { color: var(--muted); font-style: italic; }
.diff-table .empty { background: var(--panel); }
.no-diff { color: var(--muted); margin: 8px 0; }
.versions { border-collapse: collapse; margin: 0 0 12px; }
.versions caption { text-align: left; font-weight: 600; padding: 4px 0; }
.versions th, .versions td { text-align: left; vertical-align: top; padding: 3px 10px 3px 0;
  border-bottom: 1px solid var(--border); overflow-wrap: anywhere; }
.versions ul { margin: 4px 0 0; padding-left: 18px; }
.muted { color: var(--muted); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  clip-path: inset(50%); white-space: nowrap; }
:focus-visible { outline: 2px solid var(--info); outline-offset: 1px; }
footer dl { display: flex; flex-wrap: wrap; gap: 0 16px; margin: 4px 0; }
footer dt { display: inline; }
footer dd { display: inline; margin: 0 0 0 4px; }
`;
