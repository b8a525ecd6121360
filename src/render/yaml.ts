/** YAML in: multi-document parsing with line numbers. */
import { LineCounter, parseAllDocuments } from 'yaml';
import type { Manifest } from '../model/index.js';

export interface ParsedDocument {
  manifest: Manifest;
  /** 1-based line where the document starts. */
  line: number;
}

export interface ParseResult {
  documents: ParsedDocument[];
  /** The first parse error, if any document failed; documents before it are kept. */
  error?: string;
}

const MAX_ALIAS_COUNT = 1000;

/** Parses every document of a YAML stream; empty documents and non-mappings are dropped. */
export function parseDocuments(text: string): ParseResult {
  const lineCounter = new LineCounter();
  // Repositories hold templates that only look like YAML: no warnings on stderr for them.
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: false, logLevel: 'error' });
  if (!Array.isArray(docs)) return { documents: [] };
  const documents: ParsedDocument[] = [];
  for (const doc of docs) {
    const first = doc.errors[0];
    if (first) return { documents, error: first.message };
    const value: unknown = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const offset = doc.contents?.range[0] ?? 0;
      documents.push({ manifest: value as Manifest, line: lineCounter.linePos(offset).line });
    }
  }
  return { documents };
}
