import { z } from 'zod';

/**
 * A full commit SHA. Stored results always name the head the worker reviewed, even when
 * the job that produced them named none (a comment command or an API call).
 */
export const CommitSha = z.string().regex(/^[0-9a-f]{40}$/);
