/**
 * A chart failure as the unavailable memory holds it (unavailable-memory.ts), carried on the
 * error it gives: a render that keeps such an error can ask later whether the memory still
 * says the same, and so whether rendering again would give the same error, word for word.
 */
import { z } from 'zod';

export const ChartSubject = z.object({
  /** The repository URL or `oci://` reference, as normalized for the chart cache. */
  source: z.string(),
  /** `host[:port]` the source's credentials would be for. */
  host: z.string(),
  chart: z.string(),
  /** The version, range or digest asked for; empty for "latest". */
  version: z.string(),
});
export type ChartSubject = z.infer<typeof ChartSubject>;

export const RememberedChart = z.object({
  subject: ChartSubject,
  /** When the fetch failed, and until when the failure is believed (ms since the epoch). */
  failedAt: z.number(),
  until: z.number(),
});
export type RememberedChart = z.infer<typeof RememberedChart>;
