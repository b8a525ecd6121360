/**
 * A tool call refused on purpose (a repository out of reach, a rate limit, no such job): its
 * message is for the caller. Any other error reaches the caller as "internal error" only.
 */
export class Refusal extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'Refusal';
  }
}
