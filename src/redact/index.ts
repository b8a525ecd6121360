/**
 * redact/ owns every rule that keeps a Secret value out of what fluxlens prints, stores or
 * posts: Secret manifests, values copied into other objects, free text and error messages.
 * It must not decide anything else; anything that leaves the worker passes through here.
 */
export { derivedFromSecret, secretKeysOf } from './derived-from-secret.js';
export { redactAnalysisResult } from './redact-analysis-result.js';
export { fullyRedacted, redactManifest, redactPair } from './redact-manifest.js';
export type { DerivedPair, RedactedPair } from './redact-manifest.js';
export { redactRenderError } from './redact-render-error.js';
export {
  MIN_SECRET_VALUE_LENGTH,
  NO_SECRET_VALUES,
  REDACTED,
  REDACTED_CHANGED,
  hasSecretShape,
  indexSecretValues,
  redactText,
} from './redact-text.js';
export type { SecretValueIndex } from './redact-text.js';
export { CREDENTIAL_MARKER, scrubCredentials } from './scrub-credentials.js';
export { secretTextIn } from './secret-text-in.js';
export { secretValuesOf } from './secret-values.js';
