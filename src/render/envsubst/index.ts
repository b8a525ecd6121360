/**
 * envsubst/ owns the envsubst dialect of fluxcd/pkg/envsubst v1.9.0: parsing, glob trimming and
 * evaluation over UTF-8 byte strings. It must not know about manifests, YAML or Flux objects.
 */
export { fromBytes, isValidUtf8, toBytes } from './bytes.js';
export { envsubst, expandBytesMarked } from './eval.js';
export type { ByteLookup, SecretMarks } from './eval.js';
export { SubstitutionError } from './substitution-error.js';
