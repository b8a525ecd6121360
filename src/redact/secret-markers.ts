/** The marker that stands where a Secret value was. */
export const REDACTED = '<redacted>';
