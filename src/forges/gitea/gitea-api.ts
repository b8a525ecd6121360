/**
 * Requests to Gitea's (and Forgejo's) v1 REST API with a token: JSON in, JSON out, a timeout
 * per request, and every failure a GiteaError with the token scrubbed from its message.
 */
import { z } from 'zod';
import { scrubCredentials } from '../../redact/index.js';
import { FLUXLENS_VERSION } from '../../version.js';
import { GiteaError } from './gitea-error.js';

export interface GiteaApiOptions {
  /** The forge's root URL (`https://forge.example.com`); the API is under /api/v1. */
  url: string;
  token: string;
  /** Per request; the forge's answers are small. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export type GiteaRequest = <S extends z.ZodType>(
  method: 'GET' | 'POST' | 'PATCH',
  path: string,
  schema: S,
  body?: unknown,
) => Promise<z.infer<S>>;

const ForgeMessage = z.object({ message: z.string() });
const MAX_REASON = 300;
const DEFAULT_TIMEOUT_MS = 30_000;

export function giteaRequest(options: GiteaApiOptions): GiteaRequest {
  const api = `${options.url.replace(/\/+$/, '')}/api/v1`;
  const call = options.fetch ?? fetch;
  const secrets = [options.token];
  return async (method, path, schema, body) => {
    const what = `${method} ${path}`;
    let response: Response;
    try {
      response = await call(`${api}${path}`, {
        method,
        headers: {
          authorization: `token ${options.token}`,
          accept: 'application/json',
          'user-agent': `fluxlens/${FLUXLENS_VERSION}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS),
      });
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      throw new GiteaError(clip(`${what} failed: ${reason}`, secrets), { transient: true });
    }
    const text = await response.text();
    if (!response.ok) {
      const message = ForgeMessage.safeParse(parseJson(text));
      const reason = message.success ? message.data.message : response.statusText;
      const status = response.status;
      throw new GiteaError(clip(`${what} answered ${status}: ${reason}`, secrets), {
        status,
        transient: status >= 500 || status === 429,
      });
    }
    const parsed = schema.safeParse(text === '' ? undefined : parseJson(text));
    if (!parsed.success) {
      const field = parsed.error.issues[0]?.path.join('.') ?? '';
      throw new GiteaError(
        `${what}: the forge sent an answer fluxlens cannot read (at "${field}")`,
        {
          transient: false,
        },
      );
    }
    return parsed.data;
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function clip(text: string, secrets: readonly string[]): string {
  return scrubCredentials(text, secrets).slice(0, MAX_REASON);
}
