/**
 * Bounds on YAML that anyone who can open a pull request writes: nesting depth, checked on
 * the parser's own stack while it reads, before anything recursive (composing, toJS) sees
 * a document, and what aliases expand to, checked on the parsed value without recursion.
 * The yaml package and everything downstream (diff, redaction, reports) walk values
 * recursively, so a value within these bounds cannot overflow the stack or expand beyond
 * memory anywhere later. The size of a file and the nodes of one document are bounded
 * too, before anything parses them: both cost the parser, and kustomize far more.
 */
import {
  CST,
  Composer,
  type Document,
  type DocumentOptions,
  Lexer,
  LineCounter,
  type ParseOptions,
  Parser,
  type SchemaOptions,
  isAlias,
  visit,
} from 'yaml';

/**
 * Far deeper than any Kubernetes object (a CRD's schema nests a few dozen levels), and far
 * below the depth at which the yaml package's composer and stringifier run out of stack.
 */
export const MAX_YAML_DEPTH = 256;

/** The yaml package's own alias bound (maxAliasCount), which refuses a billion laughs. */
export const MAX_ALIAS_COUNT = 1000;

/** What aliases may add on top of the text itself, in the units of ExpansionBudget. */
const EXPANSION_ALLOWANCE = 1_000_000;

/**
 * The largest YAML file a build or discovery reads. Kubernetes stores no object over 1.5 MiB
 * (etcd's request limit) and a single CRD rarely passes 0.5 MiB, so the largest real files
 * are CRD bundles of a few MiB. A 50 MiB file costs the parser over a gigabyte of memory,
 * and kustomize more than its timeout.
 */
export const MAX_YAML_FILE_BYTES = 8 * 1024 * 1024;

/**
 * Nodes (scalars, aliases and flow collections) in one document. The largest object
 * Kubernetes can store holds about 60,000 (1.5 MiB of CRD schema, some 25 bytes a node);
 * kustomize's time grows with the square of a mapping's keys (40,000 keys: half a minute),
 * and the parser takes about 800 bytes of memory a node.
 */
export const MAX_DOCUMENT_NODES = 100_000;

export const TOO_DEEP = `nesting deeper than ${MAX_YAML_DEPTH} levels`;
export const TOO_BIG = `larger than ${MAX_YAML_FILE_BYTES / 1024 / 1024} MiB`;
export const TOO_MANY_NODES = `more than ${MAX_DOCUMENT_NODES} nodes in one document`;
export const TOO_MANY_ALIASES = `more than ${MAX_ALIAS_COUNT} aliases`;
export const ALIAS_CYCLE = 'an alias inside the node it refers to';
export const TOO_LARGE = 'aliases expand it to more than twice its size';
export const NO_ANCHOR = 'an alias with no anchor before it';

export interface BoundedDocuments {
  /** Every document before the first that nests too deep, as parseAllDocuments makes them. */
  docs: Document.Parsed[];
  /** Where each offset of the text is; error positions are not turned into lines here. */
  lines: LineCounter;
  /** The document that nests too deep: where it starts, and the line where it passes the bound. */
  tooDeep?: { documentStart: number; line: number };
}

/** Lexemes of a run of indicators and node properties, which the lexer reads recursively. */
const RUN_TYPES = new Set<string | null>([
  'space',
  'seq-item-ind',
  'explicit-key-ind',
  'map-value-ind',
  'anchor',
  'tag',
]);

/**
 * A run longer than this nests deeper than MAX_YAML_DEPTH (each level takes an indicator
 * and a space), or is not YAML: `- &a - &a …` nests nothing, yet the lexer recurses once
 * per indicator or property of a run.
 */
const MAX_RUN = 2 * MAX_YAML_DEPTH + 4;

/**
 * parseAllDocuments, reading one lexeme at a time and stopping at the document that nests
 * deeper than MAX_YAML_DEPTH. The parser holds the document being built on an explicit
 * stack (the document, one entry per open collection, a scalar being read), so the bound
 * is checked before the composer, which recurses, sees the document; and a run of
 * indicators is cut short before the lexer's recursion over it goes deep.
 */
export function composeBounded(
  text: string,
  options: ParseOptions & DocumentOptions & SchemaOptions,
): BoundedDocuments {
  const lines = new LineCounter();
  const parser = new Parser(lines.addNewLine);
  lines.addNewLine(0);
  const out: BoundedDocuments = { docs: [], lines };
  function* tokens() {
    let run = 0;
    let scalarNext = false;
    for (const lexeme of new Lexer().lex(text)) {
      // The lexeme after a scalar marker is the scalar's text, whatever it looks like.
      const type: CST.TokenType | null = scalarNext ? 'scalar' : CST.tokenType(lexeme);
      scalarNext = !scalarNext && type === 'scalar';
      run = RUN_TYPES.has(type) ? run + 1 : 0;
      yield* parser.next(lexeme);
      if (parser.stack.length > MAX_YAML_DEPTH + 2 || run > MAX_RUN) {
        const documentStart = parser.stack[0]?.offset ?? 0;
        out.tooDeep = { documentStart, line: lines.linePos(parser.offset).line };
        return;
      }
    }
    yield* parser.end();
  }
  for (const doc of new Composer(options).compose(tokens())) out.docs.push(doc);
  return out;
}

/**
 * Whether the text may nest deeper than MAX_YAML_DEPTH, cheaply, for files only a tool
 * reads (whose output is parsed within the bounds anyway): flow brackets open at once,
 * plus twice the widest run of indentation and block indicators that starts a line. It
 * can be fooled (quoted brackets, properties between indicators), so it only filters.
 */
export function mayNestDeep(text: string): boolean {
  let open = 0;
  let maxOpen = 0;
  let lead = 0;
  let maxLead = 0;
  let atLineStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0a || c === 0x0d) {
      atLineStart = true;
      lead = 0;
      continue;
    }
    // space, tab, '-', '?', ':'
    if (atLineStart && (c === 0x20 || c === 0x09 || c === 0x2d || c === 0x3f || c === 0x3a)) {
      lead += 1;
      if (lead > maxLead) maxLead = lead;
      continue;
    }
    atLineStart = false;
    if (c === 0x5b || c === 0x7b) {
      open += 1;
      if (open > maxOpen) maxOpen = open;
    } else if ((c === 0x5d || c === 0x7d) && open > 0) {
      open -= 1;
    }
  }
  return maxOpen + 2 * maxLead + 2 > MAX_YAML_DEPTH;
}

/**
 * Why toJS threw a ReferenceError, which the yaml package throws both for an alias whose
 * anchor is missing (a content error) and for more aliases than maxAliasCount allows.
 */
export function aliasProblem(doc: Document.Parsed): typeof NO_ANCHOR | typeof TOO_MANY_ALIASES {
  const anchors = new Set<string>();
  let missing = false;
  // The order the yaml package resolves aliases in: an anchor counts from where it stands.
  visit(doc, {
    Node(_, node) {
      if (isAlias(node)) {
        if (anchors.has(node.source)) return undefined;
        missing = true;
        return visit.BREAK;
      }
      if (node.anchor !== undefined) anchors.add(node.anchor);
      return undefined;
    },
  });
  return missing ? NO_ANCHOR : TOO_MANY_ALIASES;
}

/** Why a parsed value is refused; the messages never quote the value. */
export type ValueProblem = typeof TOO_DEEP | typeof ALIAS_CYCLE | typeof TOO_LARGE;

/** Arrays, sets, maps and plain objects: what a parsed YAML value nests in. */
function isCollection(value: object): boolean {
  if (Array.isArray(value) || value instanceof Set || value instanceof Map) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Pushes the keys and values of a collection onto `work`. */
function pushChildren(
  value: object,
  depth: number,
  work: Array<{ value: unknown; depth: number }>,
): void {
  if (Array.isArray(value) || value instanceof Set) {
    for (const item of value) work.push({ value: item, depth });
  } else if (value instanceof Map) {
    for (const [key, item] of value) work.push({ value: key, depth }, { value: item, depth });
  } else {
    for (const [key, item] of Object.entries(value))
      work.push({ value: key, depth }, { value: item, depth });
  }
}

/**
 * What the values of one stream may weigh together: one per value plus the length of each
 * string (keys too), counted every time an alias repeats a node, which is what every later
 * walk does. Text without aliases weighs at most about twice its length.
 */
export class ExpansionBudget {
  #left: number;

  constructor(text: string) {
    this.#left = 2 * text.length + EXPANSION_ALLOWANCE;
  }

  /**
   * Walks `value` without recursion and charges it to the budget: undefined when it is
   * within bounds, else why not. Stops as soon as it knows, so the walk is bounded too.
   */
  check(value: unknown): ValueProblem | undefined {
    // `exit` entries take a collection off the path when its children are done.
    const work: Array<{ value: unknown; depth: number; exit?: true }> = [{ value, depth: 0 }];
    const path = new Set<unknown>();
    for (let item = work.pop(); item !== undefined; item = work.pop()) {
      const current = item.value;
      if (item.exit) {
        path.delete(current);
        continue;
      }
      this.#left -= typeof current === 'string' ? current.length + 1 : 1;
      if (this.#left < 0) return TOO_LARGE;
      if (current === null || typeof current !== 'object' || !isCollection(current)) continue;
      if (path.has(current)) return ALIAS_CYCLE;
      if (item.depth >= MAX_YAML_DEPTH) return TOO_DEEP;
      path.add(current);
      work.push({ value: current, depth: item.depth, exit: true });
      pushChildren(current, item.depth + 1, work);
    }
    return undefined;
  }
}

/** Lexemes that each start a node of their own; block collections have no lexeme of theirs. */
const NODE_TYPES = new Set<string | null>([
  'scalar',
  'single-quoted-scalar',
  'double-quoted-scalar',
  'alias',
  'flow-map-start',
  'flow-seq-start',
]);

/** Lexemes that separate documents: a document's count starts again after them. */
const DOCUMENT_TYPES = new Set<string | null>(['doc-start', 'doc-end', 'doc-mode']);

/** Lexer markers that stand for no text of the source. */
const MARKERS = new Set(['\x02', '\x18', '\x1f']);

/**
 * The line where a document of `text` passes MAX_DOCUMENT_NODES, or undefined. Only lexes,
 * never builds a document, and skips text too short to hold that many nodes: each takes
 * two characters at least (a character and a separator), bar flow collections opened one
 * inside the other. Text that nests deeper than MAX_YAML_DEPTH is the depth bound's to
 * report: the count stops there, before the lexer's recursion over a run goes deep.
 */
export function tooManyNodes(text: string): { line: number } | undefined {
  if (text.length < 2 * (MAX_DOCUMENT_NODES - MAX_YAML_DEPTH)) return undefined;
  let nodes = 0;
  let offset = 0;
  let flowDepth = 0;
  let run = 0;
  let scalarNext = false;
  for (const lexeme of new Lexer().lex(text)) {
    // The lexeme after a scalar marker is the scalar's text, whatever it looks like.
    const type: CST.TokenType | null = scalarNext ? null : CST.tokenType(lexeme);
    if (scalarNext || !MARKERS.has(lexeme)) offset += lexeme.length;
    scalarNext = type === 'scalar';
    run = RUN_TYPES.has(type) ? run + 1 : 0;
    if (type === 'flow-map-start' || type === 'flow-seq-start') flowDepth += 1;
    else if ((type === 'flow-map-end' || type === 'flow-seq-end') && flowDepth > 0) flowDepth -= 1;
    if (run > MAX_RUN || flowDepth > MAX_YAML_DEPTH) return undefined;
    if (DOCUMENT_TYPES.has(type)) {
      nodes = 0;
      flowDepth = 0;
    } else if (NODE_TYPES.has(type) && ++nodes > MAX_DOCUMENT_NODES) {
      return { line: lineAt(text, offset) };
    }
  }
  return undefined;
}

/** The 1-based line of `offset` in `text`. */
function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line += 1;
  }
  return line;
}
