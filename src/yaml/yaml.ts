/** YAML in: multi-document parsing with line numbers, within yaml-bounds.ts's bounds. */
import { parseAllDocuments } from 'yaml';
import type { Manifest } from '../model/index.js';
import {
  ExpansionBudget,
  MAX_ALIAS_COUNT,
  NO_ANCHOR,
  TOO_DEEP,
  TOO_MANY_NODES,
  aliasProblem,
  composeBounded,
  mayNestDeep,
  tooManyNodes,
} from './yaml-bounds.js';

export interface ParsedDocument {
  manifest: Manifest;
  /** 1-based line where the document starts. */
  line: number;
}

export interface ParseResult {
  documents: ParsedDocument[];
  /**
   * The first parse error, if any document failed; documents before it are kept. A document
   * past the bounds of yaml-bounds.ts is one: nested too deep, aliases expanding too far.
   */
  error?: string;
  /** Set when `error` is one of those bounds rather than a syntax error. */
  overLimit?: true;
}

// Repositories hold templates that only look like YAML: no warnings on stderr for them.
const OPTIONS = { uniqueKeys: false, logLevel: 'error' } as const;

/** Parses every document of a YAML stream; empty documents and non-mappings are dropped. */
export function parseDocuments(text: string): ParseResult {
  // Counted by lexing alone, before the parser spends its time and memory on every node.
  const many = tooManyNodes(text);
  if (many !== undefined) return overLimit([], `${TOO_MANY_NODES} at line ${many.line}`);
  const { docs, lines, tooDeep } = composeBounded(text, OPTIONS);
  const budget = new ExpansionBudget(text);
  const documents: ParsedDocument[] = [];
  for (const [index, doc] of docs.entries()) {
    const first = doc.errors[0];
    if (first) {
      const end = tooDeep?.documentStart ?? text.length;
      return { documents, error: wordedError(text.slice(0, end), index) ?? first.message };
    }
    const line = lines.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    let value: unknown;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    } catch (error) {
      if (!(error instanceof ReferenceError)) throw error;
      const problem = aliasProblem(doc);
      if (problem === NO_ANCHOR) return { documents, error: NO_ANCHOR };
      return overLimit(documents, problem);
    }
    const problem = budget.check(value);
    if (problem === TOO_DEEP) return overLimit(documents, `${TOO_DEEP} at line ${line}`);
    if (problem) return overLimit(documents, problem);
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      documents.push({ manifest: value as Manifest, line });
    }
  }
  return tooDeep ? overLimit(documents, `${TOO_DEEP} at line ${tooDeep.line}`) : { documents };
}

/**
 * The yaml package's own words for a document's first error, with its line, column and
 * excerpt: only parseAllDocuments writes them, and it may read `readable`, which ends
 * before any document that nests too deep.
 */
function wordedError(readable: string, index: number): string | undefined {
  return parseAllDocuments(readable, OPTIONS)[index]?.errors[0]?.message;
}

function overLimit(documents: ParsedDocument[], error: string): ParseResult {
  return { documents, error, overLimit: true };
}

/** An anchor (`&name`) where a node starts: only text with one can expand through aliases. */
const ANCHOR = /(?:^|[\s[{,])&[^\s,[\]{}]/m;

/**
 * Why a file a tool reads next (kustomize) is past the bounds of yaml-bounds.ts, or
 * undefined; such a tool can spend minutes and gigabytes on a billion laughs. Only text
 * that may nest too deep or holds an anchor is parsed, so most files cost one scan; what
 * the scan misses is still refused when the tool's output is parsed.
 */
export function yamlOverLimit(text: string): string | undefined {
  if (!mayNestDeep(text) && !ANCHOR.test(text)) return undefined;
  const parsed = parseDocuments(text);
  return parsed.overLimit ? parsed.error : undefined;
}
