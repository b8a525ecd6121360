/**
 * analysis/ runs one review of a PR end to end in-process: revisions, policy, render both
 * sides, diff, risk, and the result. It is data in, deps beside; it must not format
 * reports, publish, or read the environment.
 */
export { analyze } from './analyze.js';
export {
  parseAnalysisRequest,
  type AnalysisDeps,
  type AnalysisOutcome,
  type AnalysisProgress,
  type AnalysisRequest,
} from './request.js';
// The types a caller of analyze names, so it needs no other folder for them.
export type { RenderMachine } from '../render/index.js';
export { renderEntry, type EntryRender, type EntryRequest } from './render-entry.js';
export { renderToJson, renderToYaml } from './render-output.js';
