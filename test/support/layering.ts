/**
 * The import rules of DESIGN.md as code: which top-level part of src/ may import which, that
 * a folder is entered only through its index.ts, and that no folder (at any depth) and no
 * file depends on itself through others, an `import type` counting as any import: a type
 * read back from the file that uses it is still a loop for a reader.
 * test/unit/layering.test.ts runs it over src/ and workers/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, sep } from 'node:path';
import ts from 'typescript';

/**
 * Who may import whom, by top-level part (a folder of src/, or a file of src/ without its
 * extension). model and errors may be imported by anyone and import nothing; logger's types
 * (LogSink) by anyone.
 */
export const LAYERS: Record<string, readonly string[]> = {
  model: [],
  errors: [],
  'registry-config': [],
  config: ['registry-config'],
  'report-link': [],
  version: [],
  shutdown: [],
  'tool-runner': ['config'],
  logger: ['redact'],
  redact: [],
  yaml: [],
  policy: ['yaml'],
  git: ['tool-runner', 'redact'],
  render: ['yaml', 'redact', 'git', 'tool-runner', 'config', 'version'],
  diff: ['redact', 'policy'],
  risk: ['diff', 'policy'],
  report: ['risk'],
  analysis: ['git', 'render', 'diff', 'risk', 'policy', 'redact', 'tool-runner'],
  forges: ['config', 'version', 'redact'],
  github: ['forges', 'config', 'version', 'redact'],
  queue: ['config', 'redact'],
  review: [
    'analysis',
    'report',
    'forges',
    'github',
    'git',
    'queue',
    'policy',
    'logger',
    'config',
    'tool-runner',
    'report-link',
  ],
  mcp: ['queue'],
  server: ['queue', 'mcp', 'forges', 'github', 'config', 'logger', 'report-link', 'version'],
  cli: ['*'],
  workers: [
    'config',
    'logger',
    'queue',
    'review',
    'report',
    'risk',
    'server',
    'forges',
    'github',
    'tool-runner',
    'version',
  ],
};

/** Importable by every part. */
const EVERYONE = ['model', 'errors'];

/** Importable by every part for their types only: logger's LogSink, which any code logs to. */
const TYPES_FOR_EVERYONE = ['logger'];

export interface Violation {
  rule: 'layer' | 'deep-import' | 'folder-cycle' | 'file-cycle' | 'unknown-part';
  file: string;
  message: string;
}

/** A source tree: repository-relative POSIX path -> file text. */
export type SourceTree = ReadonlyMap<string, string>;

export function readSourceTree(root: string, folders: readonly string[]): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) {
        files.set(relative(root, path).split(sep).join('/'), readFileSync(path, 'utf8'));
      }
    }
  };
  for (const folder of folders) {
    try {
      walk(join(root, folder));
    } catch {
      // a folder that does not exist has nothing to check
    }
  }
  return files;
}

interface Edge {
  from: string;
  to: string;
  /** Every import of `to` in `from` names types only (`import type`, `export type`). */
  typeOnly: boolean;
}

/** Every relative import of every file, resolved to a file of the tree. */
function importEdges(tree: SourceTree): Edge[] {
  const edges: Edge[] = [];
  for (const [file, text] of tree) {
    const typeOnly = typeOnlySpecifiers(file, text);
    for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
      if (!ref.fileName.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file), ref.fileName));
      const source = target.replace(/\.js$/, '.ts');
      if (tree.has(source)) {
        edges.push({ from: file, to: source, typeOnly: typeOnly.has(ref.fileName) });
      }
    }
  }
  return edges;
}

/** The modules a file imports or re-exports types from and nothing else. */
function typeOnlySpecifiers(file: string, text: string): Set<string> {
  const types = new Set<string>();
  const values = new Set<string>();
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest);
  for (const statement of source.statements) {
    let specifier: ts.Expression | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      const clause = statement.importClause;
      const named = clause?.namedBindings;
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((element) => element.isTypeOnly)));
    } else if (ts.isExportDeclaration(statement)) {
      specifier = statement.moduleSpecifier;
      const named = statement.exportClause;
      typeOnly =
        statement.isTypeOnly ||
        (named !== undefined &&
          ts.isNamedExports(named) &&
          named.elements.length > 0 &&
          named.elements.every((element) => element.isTypeOnly));
    }
    if (specifier === undefined || !ts.isStringLiteral(specifier)) continue;
    (typeOnly ? types : values).add(specifier.text);
  }
  for (const value of values) types.delete(value);
  return types;
}

/** `src/render/helm/x.ts` -> `render`; `src/config.ts` -> `config`; `workers/x.ts` -> `workers`. */
function partOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'src') return parts[0] ?? '';
  const top = parts[1] ?? '';
  return parts.length === 2 ? top.replace(/\.ts$/, '') : top;
}

function layerViolations(edges: readonly Edge[]): Violation[] {
  const out: Violation[] = [];
  for (const { from, to, typeOnly } of edges) {
    const a = partOf(from);
    const b = partOf(to);
    if (a === b || EVERYONE.includes(b)) continue;
    if (typeOnly && TYPES_FOR_EVERYONE.includes(b)) continue;
    const allowed = LAYERS[a];
    if (allowed === undefined) {
      out.push({ rule: 'unknown-part', file: from, message: `${a} is not in LAYERS` });
    } else if (!allowed.includes('*') && !allowed.includes(b)) {
      out.push({ rule: 'layer', file: from, message: `${a} may not import ${b} (${to})` });
    }
  }
  return out;
}

/** A folder is entered through its index.ts: files outside it import nothing else of it. */
function deepImportViolations(edges: readonly Edge[]): Violation[] {
  const out: Violation[] = [];
  for (const { from, to } of edges) {
    // workers/ sits beside src/: for it, src/'s top-level folders are what it enters.
    const shared = commonFolder(posix.dirname(from), posix.dirname(to));
    const common = shared === '' && to.startsWith('src/') ? 'src' : shared;
    const rest = posix.relative(common, to).split('/');
    if (rest.length === 1) continue;
    // `to` sits in a folder (`common/rest[0]`) that `from` is outside of.
    if (rest.length === 2 && rest[1] === 'index.ts') continue;
    out.push({
      rule: 'deep-import',
      file: from,
      message: `imports ${to}; import ${posix.join(common, rest[0] ?? '', 'index.js')} instead`,
    });
  }
  return out;
}

function commonFolder(a: string, b: string): string {
  const pa = a.split('/');
  const pb = b.split('/');
  let i = 0;
  while (i < pa.length && i < pb.length && pa[i] === pb[i]) i++;
  return pa.slice(0, i).join('/');
}

/**
 * Folder-level cycles at every depth: an edge between two different folders counts, except
 * a folder's index.ts reaching into its own subfolders (that is what a facade is for).
 */
function folderCycleViolations(edges: readonly Edge[]): Violation[] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    const a = dirname(from);
    const b = dirname(to);
    if (a === b) continue;
    if (posix.basename(from) === 'index.ts' && b.startsWith(`${a}/`)) continue;
    if (!graph.has(a)) graph.set(a, new Set());
    graph.get(a)?.add(b);
  }
  return cycleViolations(graph, 'folder-cycle', 'folders');
}

/** File-level cycles, every import counted: `import type` and `export type` too. */
function fileCycleViolations(edges: readonly Edge[]): Violation[] {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)?.add(to);
  }
  return cycleViolations(graph, 'file-cycle', 'files');
}

function cycleViolations(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  rule: 'folder-cycle' | 'file-cycle',
  what: string,
): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const cycle of findCycles(graph)) {
    const key = [...cycle].sort().join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({
      rule,
      file: cycle[0] ?? '',
      message: `${what} depend on each other: ${[...cycle, cycle[0]].join(' -> ')}`,
    });
  }
  return out;
}

/** Each strongly connected component of more than one node, as one of its cycles. */
function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

export function checkLayering(tree: SourceTree): Violation[] {
  const edges = importEdges(tree);
  return [
    ...layerViolations(edges),
    ...deepImportViolations(edges),
    ...folderCycleViolations(edges),
    ...fileCycleViolations(edges),
  ];
}
