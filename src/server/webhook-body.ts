/**
 * A webhook body read as it streams in: the HMAC is computed chunk by chunk, bytes are kept
 * only up to the event's limit, and a body that stalls is cut off. Nothing here parses the
 * body; a caller gets bytes whose signature matched, or an HttpError.
 */
import { createHmac, type Hmac, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { HttpError } from './http-error.js';

const KIB = 1024;
const MIB = 1024 * KIB;

/**
 * Bodies of the events fluxlens reads, sized to what GitHub sends for them with room to
 * spare: a PR or a comment payload is tens of kB (its texts are capped at 65,536 characters,
 * a few hundred kB at worst when escaped), a check event carries at most a check's output,
 * installation events list repositories. GitHub's 25 MB cap is for events we never read.
 */
export const EVENT_BODY_LIMITS: ReadonlyMap<string, number> = new Map([
  ['ping', 64 * KIB],
  ['pull_request', 2 * MIB],
  ['issue_comment', 2 * MIB],
  ['check_run', 2 * MIB],
  ['check_suite', 2 * MIB],
  ['installation', 4 * MIB],
  ['installation_repositories', 4 * MIB],
]);

/** A body that may be bigger than this (or does not say) holds one of the large-body slots. */
export const LARGE_BODY_BYTES = 256 * KIB;

const SIGNATURE = /^sha256=([0-9a-f]{64})$/;

/** The digest X-Hub-Signature-256 names, or undefined when the header is not one. */
export function signatureDigest(header: string | undefined): Buffer | undefined {
  const hex = header === undefined ? undefined : SIGNATURE.exec(header)?.[1];
  return hex === undefined ? undefined : Buffer.from(hex, 'hex');
}

export interface BodyRead {
  /** Bytes past this are refused with 413 as they arrive. */
  limit: number;
  /** The whole body must have arrived by then, or it is refused with 408. */
  timeoutMs: number;
  /**
   * With secrets, the body must match the digest under one of them (the current one, and
   * during a rotation the one it replaces) or it is refused with 401.
   */
  signature?: { secrets: readonly string[]; digest: Buffer };
}

/**
 * Reads `stream` to its end under `read`'s rules. On refusal the stream is left to the
 * caller's error path (fastify answers with `Connection: close`), so the rest of a refused
 * body is never buffered.
 */
export function readWebhookBody(stream: Readable, read: BodyRead): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const hmacs = read.signature?.secrets.map((secret) => createHmac('sha256', secret)) ?? [];
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (result: Error | Buffer) => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('aborted', onAborted);
      if (result instanceof Error) {
        chunks.length = 0;
        reject(result);
      } else resolve(result);
    };
    const timer = setTimeout(
      () => finish(new HttpError(408, 'the body did not arrive in time', 'slow-body')),
      read.timeoutMs,
    );
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      received += bytes.length;
      if (received > read.limit) {
        finish(new HttpError(413, 'body larger than this event is ever sent', 'oversized'));
        return;
      }
      for (const hmac of hmacs) hmac.update(bytes);
      chunks.push(bytes);
    };
    const onEnd = () => {
      if (read.signature !== undefined && !matchesOne(hmacs, read.signature.digest)) {
        finish(new HttpError(401, 'signature does not match', 'bad-signature'));
        return;
      }
      finish(Buffer.concat(chunks, received));
    };
    const onError = (err: Error) =>
      finish(new HttpError(400, 'the body could not be read', 'bad-request', { cause: err }));
    const onAborted = () => onError(new Error('the client went away'));
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('aborted', onAborted);
    stream.resume();
  });
}

/**
 * Whether one of the HMACs gives `digest`. Each is compared in constant time, and all of
 * them, so the time taken does not tell which secret signed.
 */
function matchesOne(hmacs: readonly Hmac[], digest: Buffer): boolean {
  let matched = false;
  for (const hmac of hmacs) matched = timingSafeEqual(hmac.digest(), digest) || matched;
  return matched;
}

/** At most `size` large bodies are read at once; a caller that gets none answers 503. */
export interface BodySlots {
  /** A release function, or undefined when every slot is taken. */
  take(): (() => void) | undefined;
}

export function createBodySlots(size: number): BodySlots {
  let free = size;
  return {
    take() {
      if (free === 0) return undefined;
      free -= 1;
      let released = false;
      return () => {
        if (!released) free += 1;
        released = true;
      };
    },
  };
}
