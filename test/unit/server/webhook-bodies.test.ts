/**
 * How webhook bodies are read, on a listening server where streaming matters: refused from
 * the headers when they can be, hashed as they arrive, cut off past their event's limit or
 * their deadline, and never parsed unless their signature matched.
 */
import { once } from 'node:events';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { example, signBody } from './support/github-examples.js';
import {
  type TestServer,
  WEBHOOK_SECRET,
  deliver,
  metricValue,
  testServer,
} from './support/test-server.js';

const MIB = 1024 * 1024;

let server: TestServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.app.close();
  server = undefined;
});

async function listening(overrides: Parameters<typeof testServer>[0] = {}) {
  server = testServer(overrides);
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  return { ...server, port: (server.app.server.address() as AddressInfo).port };
}

interface Raw {
  socket: Socket;
  /** The status of the answer, once one came. */
  status: Promise<number>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
  /** Writes and waits until the bytes are handed to the kernel. */
  write(bytes: Buffer | string): Promise<void>;
}

/** A POST to the webhook route on a raw connection: the test decides what of the body goes. */
function rawPost(port: number, headers: Record<string, string>): Raw {
  const socket = connect(port, '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  let answer = '';
  const status = new Promise<number>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const code = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      if (code !== undefined) resolve(Number(code));
    });
  });
  const closed = once(socket, 'close').then(() => undefined);
  const head = Object.entries({ host: '127.0.0.1', ...headers })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.write(`POST /webhooks/github HTTP/1.1\r\n${head}\r\n`);
  const write = (bytes: Buffer | string) =>
    new Promise<void>((resolve) => {
      if (socket.destroyed) resolve();
      else socket.write(bytes, () => resolve());
    });
  return { socket, status, closed, write };
}

const webhookHeaders = (event: string, extra: Record<string, string> = {}) => ({
  'content-type': 'application/json',
  'x-github-event': event,
  'x-github-delivery': `d-${Math.random().toString(16).slice(2)}`,
  'x-hub-signature-256': `sha256=${'0'.repeat(64)}`,
  ...extra,
});

describe('webhook bodies', () => {
  it('refuses a pull_request body declared past its limit with 413 before reading it', async () => {
    const { port, app, queue } = await listening();
    const post = rawPost(port, webhookHeaders('pull_request', { 'content-length': `${3 * MIB}` }));
    await post.write('{"pad":"');
    expect(await post.status).toBe(413);
    await post.closed;
    expect(queue.enqueued).toEqual([]);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="oversized"}')).toBe(1);
  });

  it('refuses a body of no declared length with 413 as soon as it passes the limit', async () => {
    const { port } = await listening();
    const post = rawPost(port, webhookHeaders('pull_request', { 'transfer-encoding': 'chunked' }));
    const chunk = Buffer.alloc(256 * 1024, 'x');
    // Past the 2 MiB limit, then nothing more and no final chunk: the body never ends.
    for (let sent = 0; sent <= 2 * MIB && !post.socket.destroyed; sent += chunk.length) {
      await post.write(`${chunk.length.toString(16)}\r\n`);
      await post.write(chunk);
      await post.write('\r\n');
    }
    expect(await post.status).toBe(413);
    await post.closed;
  });

  it('closes a body that stalls, once the body timeout has passed', async () => {
    const { port, app } = await listening({ bodyTimeoutMs: 300 });
    const post = rawPost(port, webhookHeaders('pull_request', { 'content-length': '10000' }));
    await post.write('{"action":"opened",');
    expect(await post.status).toBe(408);
    await post.closed;
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="slow-body"}')).toBe(1);
  });

  it('answers an event fluxlens does not handle without reading its body', async () => {
    const { port, app } = await listening();
    // 20 MiB declared, not a byte sent: the answer can only come from the headers.
    const post = rawPost(port, webhookHeaders('star', { 'content-length': `${20 * MIB}` }));
    expect(await post.status).toBe(202);
    await post.closed;
    const sample = 'fluxlens_webhook_deliveries_total{event="other",outcome="ignored"}';
    expect(await metricValue(app, sample)).toBe(1);
  });

  it('refuses a delivery without a signature before reading its body', async () => {
    const { port } = await listening();
    const unsigned: Record<string, string> = webhookHeaders('pull_request', {
      'content-length': '5000',
    });
    delete unsigned['x-hub-signature-256'];
    const post = rawPost(port, unsigned);
    expect(await post.status).toBe(401);
    await post.closed;
  });

  it('answers 503 at once to a large body while every large-body slot is taken', async () => {
    const { port, app, queue } = await listening({ largeBodySlots: 1 });
    const big = JSON.stringify({ ...example('pull_request', 'opened'), pad: 'x'.repeat(MIB) });
    const holding = rawPost(port, {
      ...webhookHeaders('pull_request', { 'content-length': String(big.length) }),
      'x-hub-signature-256': signBody(WEBHOOK_SECRET, big),
    });
    await holding.write(big.slice(0, 1000));
    const refused = rawPost(port, webhookHeaders('pull_request', { 'content-length': `${MIB}` }));
    expect(await refused.status).toBe(503);
    await refused.closed;
    // The first body, finished, is read and acted on; its slot is then free again.
    await holding.write(big.slice(1000));
    expect(await holding.status).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
    const next = rawPost(port, webhookHeaders('pull_request', { 'content-length': `${MIB}` }));
    await next.write(Buffer.alloc(MIB, 'x'));
    expect(await next.status).toBe(401);
    expect(await metricValue(app, 'fluxlens_http_rejections_total{reason="busy"}')).toBe(1);
  });

  it('refuses a wrongly signed body with 401 without parsing it as JSON', async () => {
    server = testServer();
    const res = await deliver(
      server.app,
      'pull_request',
      {},
      {
        rawBody: '{"action": "opened",',
        signature: `sha256=${'1'.repeat(64)}`,
      },
    );
    expect(res.statusCode).toBe(401);
    expect(server.queue.enqueued).toEqual([]);
  });

  it('verifies the signature over the bytes as sent, multi-byte characters split or not', async () => {
    const { port, queue } = await listening();
    const payload = example('pull_request', 'opened');
    const body = Buffer.from(JSON.stringify({ ...payload, note: 'Grüße, 東京 ✓' }), 'utf8');
    const post = rawPost(port, {
      ...webhookHeaders('pull_request', { 'content-length': String(body.length) }),
      'x-hub-signature-256': signBody(WEBHOOK_SECRET, body.toString('utf8')),
    });
    const cut = body.indexOf(Buffer.from('東')) + 1;
    await post.write(body.subarray(0, cut));
    await post.write(body.subarray(cut));
    expect(await post.status).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
  });

  it('hashes a streamed body under the previous secret too, during a rotation', async () => {
    const previous = 'webhook-secret-being-replaced-20c4';
    const { port, queue } = await listening({ previousWebhookSecret: previous });
    const body = Buffer.from(JSON.stringify(example('pull_request', 'synchronize')), 'utf8');
    const post = rawPost(port, {
      ...webhookHeaders('pull_request', { 'content-length': String(body.length) }),
      'x-hub-signature-256': signBody(previous, body.toString('utf8')),
    });
    const third = Math.floor(body.length / 3);
    await post.write(body.subarray(0, third));
    await post.write(body.subarray(third, 2 * third));
    await post.write(body.subarray(2 * third));
    expect(await post.status).toBe(202);
    expect(queue.enqueued).toHaveLength(1);
  });
});
