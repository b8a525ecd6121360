/**
 * Validates an AnalysisResult (as JSON) against schema/analysis-result.schema.json, for any
 * test that produces one. The schema is compiled once per test file, in strict mode, so a
 * sloppy schema fails as loudly as a wrong result.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { projectRoot } from './paths.js';

export const analysisSchemaPath = resolve(projectRoot, 'schema', 'analysis-result.schema.json');

let compiled: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!compiled) {
    const schema: unknown = JSON.parse(readFileSync(analysisSchemaPath, 'utf8'));
    if (!schema || typeof schema !== 'object')
      throw new Error(`${analysisSchemaPath}: not a schema`);
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    compiled = ajv.compile(schema);
  }
  return compiled;
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath === '' ? '(root)' : error.instancePath;
  return `${where}: ${error.message ?? error.keyword} [${error.schemaPath}] ${JSON.stringify(error.params)}`;
}

/**
 * Throws unless `json` (a parsed AnalysisResult, e.g. `JSON.parse(renderJson(result))`) is
 * valid against the schema; the message lists every failing instance path.
 */
export function expectValidAnalysis(json: unknown): void {
  const validate = validator();
  if (validate(json)) return;
  const lines = (validate.errors ?? []).map(describeError);
  throw new Error(`AnalysisResult does not match its schema:\n  ${lines.join('\n  ')}`);
}
