/**
 * A local folder standing in for a Flux source the review cannot fetch (`--source
 * NAME=DIR`): part of a render request, so it lives beside the engine seam.
 */
import { z } from 'zod';

export const SourceMapping = z
  .object({
    /** NAME, NAMESPACE/NAME or KIND/NAMESPACE/NAME. */
    key: z.string().min(1).max(512),
    /** A local folder that stands in for the source's artifact. */
    dir: z.string().min(1),
  })
  .strict();

export type SourceMapping = z.infer<typeof SourceMapping>;

export function parseSourceMapping(arg: string): SourceMapping | undefined {
  const eq = arg.indexOf('=');
  if (eq <= 0 || eq === arg.length - 1) return undefined;
  return { key: arg.slice(0, eq), dir: arg.slice(eq + 1) };
}
