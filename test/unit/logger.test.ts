import { describe, expect, it } from 'vitest';
import { childLogger, createLogger, serializeError } from '../../src/logger.js';

function capture(level: 'info' | 'debug' = 'info') {
  const lines: string[] = [];
  const logger = createLogger({ level, destination: { write: (line) => lines.push(line) } });
  const records = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { logger, lines, records };
}

describe('createLogger', () => {
  it('writes one JSON line per message with data in fields', () => {
    const { logger, records } = capture();
    logger.info({ owner: 'flux-org', pullNumber: 7 }, 'review job enqueued');
    expect(records()).toMatchObject([
      { level: 30, msg: 'review job enqueued', owner: 'flux-org', pullNumber: 7 },
    ]);
  });

  it.each([
    ['a token', { token: 'ghs_abc123' }],
    ['an API token', { apiToken: 'ghs_abc123' }],
    ['a private key', { privateKey: '-----BEGIN RSA PRIVATE KEY-----ghs_abc123' }],
    ['a webhook secret', { webhookSecret: 'ghs_abc123' }],
    ['the previous webhook secret', { previousWebhookSecret: 'ghs_abc123' }],
    ['a secret', { secret: 'ghs_abc123' }],
    ['a nested token', { github: { token: 'ghs_abc123' } }],
    ['an authorization header', { headers: { authorization: 'token ghs_abc123' } }],
    [
      'a request authorization header',
      { request: { headers: { authorization: 'token ghs_abc123' } } },
    ],
    ['a cookie', { upstream: { headers: { cookie: 'session=ghs_abc123' } } }],
  ])('redacts %s', (_name, fields) => {
    const { logger, lines } = capture();
    logger.info(fields, 'configuration loaded');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('ghs_abc123');
    expect(lines[0]).toContain('[redacted]');
  });

  it('logs an error as type, message, code and stack, without the request it carried', () => {
    const { logger, lines, records } = capture();
    const err = Object.assign(
      new Error('Bad credentials', { cause: new Error('socket hang up') }),
      {
        status: 401,
        code: 'E_AUTH',
        request: { headers: { authorization: 'token ghs_abc123' }, body: '{"body":"comment"}' },
        event: { payload: '{"secret":"x"}' },
      },
    );
    logger.error({ err }, 'github call failed');
    expect(lines[0]).not.toContain('ghs_abc123');
    expect(lines[0]).not.toContain('comment');
    expect(records()[0]?.err).toMatchObject({
      type: 'Error',
      message: 'Bad credentials',
      code: 'E_AUTH',
      statusCode: 401,
      cause: { type: 'Error', message: 'socket hang up' },
    });
  });

  it('bounds a cyclic cause chain', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(JSON.stringify(serializeError(a))).toContain('"message":"b"');
  });

  it('logs a request as method and path, without the query that can hold a signed link', () => {
    const { logger, lines } = capture();
    logger.info(
      { req: { method: 'GET', url: '/reports/a/b/pulls/1?expires=1&sig=deadbeef' } },
      'incoming request',
    );
    expect(lines[0]).toContain('"path":"/reports/a/b/pulls/1"');
    expect(lines[0]).not.toContain('deadbeef');
  });

  it('carries the bindings of a child on every line', () => {
    const { logger, records } = capture();
    const job = childLogger(logger, { deliveryId: 'd-1', repo: 'fleet' });
    job.info('review started');
    job.info('review finished');
    expect(records()).toMatchObject([
      { deliveryId: 'd-1', repo: 'fleet' },
      { deliveryId: 'd-1', repo: 'fleet' },
    ]);
  });

  it('drops messages below its level', () => {
    const { logger, lines } = capture('info');
    logger.debug('tool argv');
    expect(lines).toEqual([]);
  });
});
