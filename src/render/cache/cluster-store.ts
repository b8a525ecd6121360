/**
 * Whole renders in the render cache, under a key the engine makes of a commit and
 * everything else the render depends on (see builtin/reuse/whole-render.ts): the base of a
 * review is usually a commit rendered before, by the last push or another pull request,
 * and reading it back costs one file instead of a walk over every producer. Like the
 * outcomes, only what JSON gives back exactly is stored, and an entry that does not read
 * back as a rendered cluster is a miss.
 */
import { z } from 'zod';
import { RENDER_ERROR_CODES, type RenderedCluster } from '../../model/index.js';
import { faithfulJson, Ref, RenderedObject, withoutAbsent } from './outcome-store.js';
import type { RenderCache } from './render-cache.js';

const VERSION = 2;

const Producer = Ref.extend({
  path: z.string(),
  source: z.string(),
  suspend: z.boolean(),
  prune: z.boolean(),
  dependsOn: z.array(Ref),
  definedIn: z.union([
    z.object({ file: z.string(), line: z.number().optional() }),
    z.object({ parent: Ref }),
  ]),
  error: z.string().optional(),
  skipped: z.string().optional(),
  assumed: z.array(z.string()).optional(),
  inputKey: z.string().optional(),
  byConvention: z.literal('flux-bootstrap').optional(),
});

const RenderError = z.object({
  producer: Ref,
  file: z.string().optional(),
  message: z.string(),
  code: z.enum(RENDER_ERROR_CODES).optional(),
  offline: z.boolean().optional(),
});

const Entry = z.object({
  v: z.literal(VERSION),
  producers: z.array(Producer),
  objects: z.array(RenderedObject),
  errors: z.array(RenderError),
  tools: z.record(z.string(), z.string()),
  reads: z
    .object({
      files: z.array(z.string()),
      ignore: z.array(
        z.array(z.object({ dir: z.string(), pattern: z.string(), from: z.string() })),
      ),
    })
    .optional(),
});

/** The stored render, counted as a hit of the cache when there is one (never as a miss). */
export async function readCluster(
  store: RenderCache,
  key: string,
): Promise<RenderedCluster | undefined> {
  const text = await store.get(key, 'never');
  if (text === undefined) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = Entry.safeParse(raw);
  if (!parsed.success) return undefined;
  // JSON holds no undefined, so what passed the schema is taken as written, but objects,
  // whose Secret markers the rest of the renderer reads field by field.
  const { producers, errors, tools, reads } = raw as RenderedCluster;
  const objects = parsed.data.objects.map(withoutAbsent);
  return { producers, errors, tools, objects, ...(reads ? { reads } : {}) };
}

/** Stores a render; nothing when JSON would not give it back. */
export async function writeCluster(
  store: RenderCache,
  key: string,
  cluster: RenderedCluster,
): Promise<void> {
  const { producers, objects, errors, tools, reads } = cluster;
  const stored = { v: VERSION, producers, objects, errors, tools, ...(reads ? { reads } : {}) };
  const text = faithfulJson(stored);
  if (text !== undefined) await store.put(key, text);
}
