/**
 * GitHub's own webhook payloads from @octokit/webhooks-examples, signed the way GitHub
 * signs them. Tests start from a real payload and change only the fields a case is about.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { z } from 'zod';

const require = createRequire(import.meta.url);

const DefinitionsSchema = z.array(
  z.object({
    name: z.string(),
    examples: z.array(z.record(z.string(), z.unknown())),
  }),
);

const definitions = DefinitionsSchema.parse(
  JSON.parse(readFileSync(require.resolve('@octokit/webhooks-examples'), 'utf8')),
);

export type Payload = Record<string, unknown>;

/** A fresh copy of the first example of `event` with this `action` (any, when absent). */
export function example(event: string, action?: string): Payload {
  const found = definitions
    .find((d) => d.name === event)
    ?.examples.find((e) => action === undefined || e.action === action);
  if (found === undefined) throw new Error(`no example for ${event} ${action ?? ''}`);
  return structuredClone(found);
}

/** Sets a dotted path in a payload: `set(p, 'pull_request.draft', true)`. */
export function set(payload: Payload, path: string, value: unknown): Payload {
  const keys = path.split('.');
  const last = keys.pop();
  let node: Record<string, unknown> = payload;
  for (const key of keys) {
    const next = node[key];
    if (typeof next !== 'object' || next === null)
      throw new Error(`no object at ${key} in ${path}`);
    node = next as Record<string, unknown>;
  }
  if (last === undefined) throw new Error('empty path');
  node[last] = value;
  return payload;
}

/** Reads a dotted path, for building one payload's fields from another's. */
export function get(payload: Payload, path: string): unknown {
  let node: unknown = payload;
  for (const key of path.split('.')) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

export function signBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}
