/**
 * A stored AnalysisResult read back (the service keeps results as JSON): checked against
 * schema/analysis-result.schema.json before any report is rendered from it.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { AnalysisResult } from '../model/index.js';
import schema from '../../schema/analysis-result.schema.json' with { type: 'json' };

let validate: ((value: unknown) => value is AnalysisResult) | undefined;

function validator(): (value: unknown) => value is AnalysisResult {
  validate ??= new Ajv2020({ strict: true }).compile<AnalysisResult>(schema);
  return validate;
}

/** The result in `json`; an Error when it is not JSON or not an AnalysisResult. */
export function parseAnalysisResult(json: string): AnalysisResult {
  const value: unknown = JSON.parse(json);
  if (!validator()(value))
    throw new Error('stored result does not match the AnalysisResult schema');
  return value;
}
