/**
 * Whole producer outcomes in the render cache, under the producer's key (its build's key
 * and everything its post-build reads): a producer rendered once on the machine is read
 * back as JSON instead of parsing, substituting and locating its build's output again.
 * Only what JSON gives back exactly is stored; an entry that does not read back as an
 * outcome is a miss.
 */
import { z } from 'zod';
import type { RenderedObject as Rendered } from '../../model/index.js';
import type { RenderCache } from './render-cache.js';
import type { MemoOutcome } from './render-memo.js';

const VERSION = 1;

export const Ref = z.object({
  kind: z.enum(['Kustomization', 'HelmRelease', 'ResourceSet']),
  namespace: z.string(),
  name: z.string(),
});

const SecretDerived = z.object({
  texts: z.array(z.string()),
  fields: z.array(
    z.object({
      path: z.array(z.union([z.string(), z.number()])),
      key: z.literal(true).optional(),
    }),
  ),
});

export const RenderedObject = z.object({
  producer: Ref,
  file: z.string().optional(),
  line: z.number().optional(),
  manifest: z.record(z.string(), z.unknown()),
  secret: SecretDerived.optional(),
});

const Entry = z.object({
  v: z.literal(VERSION),
  objects: z.array(RenderedObject),
  assumed: z.array(z.string()).optional(),
  chart: z.string().optional(),
});

/** The stored outcome, counted as a hit of the cache when there is one (never as a miss). */
export async function readOutcome(
  store: RenderCache,
  key: string,
): Promise<MemoOutcome | undefined> {
  const parsed = await store.getParsed(key, Entry, 'hits');
  if (parsed === undefined) return undefined;
  const { objects, assumed, chart } = parsed;
  return {
    objects: objects.map((o) => withoutAbsent(o)),
    ...(assumed !== undefined ? { assumed } : {}),
    ...(chart !== undefined ? { chart } : {}),
  };
}

/** Stores a rendered outcome; errors are not stored, nor what JSON would not give back. */
export async function writeOutcome(
  store: RenderCache,
  key: string,
  outcome: MemoOutcome,
): Promise<void> {
  if ('error' in outcome) return;
  const text = faithfulJson({ v: VERSION, ...outcome });
  if (text !== undefined) await store.put(key, text);
}

/** The parsed object without the optional fields zod set to undefined. */
export function withoutAbsent(o: z.infer<typeof RenderedObject>): Rendered {
  const { producer, manifest, file, line, secret } = o;
  return {
    producer,
    manifest,
    ...(file !== undefined ? { file } : {}),
    ...(line !== undefined ? { line } : {}),
    ...(secret !== undefined
      ? {
          secret: {
            texts: secret.texts,
            fields: secret.fields.map((f) =>
              f.key ? { path: f.path, key: true } : { path: f.path },
            ),
          },
        }
      : {}),
  };
}

/**
 * JSON of `value`, or undefined when parsing it back would not give `value`: numbers JSON
 * cannot spell (NaN, infinities, -0), big integers, and objects that are not plain data.
 */
export function faithfulJson(value: unknown): string | undefined {
  let faithful = true;
  const text = JSON.stringify(value, function (this: unknown, key: string, v: unknown) {
    const raw = (this as Record<string, unknown>)[key];
    if (typeof raw === 'number' && (!Number.isFinite(raw) || Object.is(raw, -0))) faithful = false;
    else if (typeof raw === 'bigint' || typeof raw === 'function' || typeof raw === 'symbol')
      faithful = false;
    else if (raw === undefined && key !== '') faithful = false;
    else if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      const proto = Object.getPrototypeOf(raw) as unknown;
      if (proto !== Object.prototype && proto !== null) faithful = false;
    }
    return typeof v === 'bigint' ? null : v;
  });
  return faithful ? text : undefined;
}
