/** Render errors quote tool output, which may quote a value substitution took from a Secret. */
import type { RenderError } from '../model/index.js';
import { REDACTED, redactText, type SecretValueIndex } from './redact-text.js';

/** The error with every known Secret value in its message hidden. */
export function redactRenderError<E extends RenderError>(error: E, secrets: SecretValueIndex): E {
  return { ...error, message: redactText(error.message, REDACTED, secrets) };
}
