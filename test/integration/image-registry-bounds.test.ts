/**
 * The image check within the chart fetch's bounds: a registry that accepts connections and
 * never answers is given up at the response bound, once per review: its other images are
 * "not checked" for the same reason without another request. A reference the registry API
 * cannot be asked about is not checked either, and costs no request.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ImageQuery } from '../../src/model/index.js';
import { DEFAULT_CHART_NETWORK, checkImages } from '../../src/render/index.js';

let silent: Server;
let host = '';
let work = '';
const sockets: Socket[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'fluxlens-image-bounds-'));
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  host = `127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => silent.close(() => resolve()));
  rmSync(work, { recursive: true, force: true });
});

const query = (path: string, reference: string): ImageQuery => ({
  image: `${host}/${path}:${reference}`,
  registry: host,
  path,
  reference,
});

describe('the image check against a registry that never answers', () => {
  it('gives up at the response bound, and asks nothing more of that registry', async () => {
    const queries = [query('acme/api', '1.0.0'), query('acme/web', '2.0.0')];
    const answers = await checkImages(queries, {
      network: { ...DEFAULT_CHART_NETWORK, connectTimeoutMs: 5_000, responseTimeoutMs: 300 },
      chartCacheDir: work,
      offline: false,
      timeoutMs: 60_000,
    });
    const reason = `cannot fetch http://${host}/v2/acme/api/manifests/1.0.0: ${host} did not answer within 300 ms`;
    expect(Object.fromEntries(answers)).toEqual({
      [`${host}/acme/api:1.0.0`]: { state: 'unchecked', reason },
      [`${host}/acme/web:2.0.0`]: { state: 'unchecked', reason },
    });
    expect(sockets).toHaveLength(1);
  });

  it('does not ask about a reference the registry API cannot name', async () => {
    const before = sockets.length;
    const answers = await checkImages([query('Acme/../web', '1.0.0')], {
      network: DEFAULT_CHART_NETWORK,
      chartCacheDir: work,
      offline: false,
      timeoutMs: 60_000,
    });
    expect([...answers.values()]).toEqual([
      { state: 'unchecked', reason: 'not a reference the registry API can be asked about' },
    ]);
    expect(sockets).toHaveLength(before);
  });
});
