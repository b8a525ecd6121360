/**
 * The leak check every end-to-end fault test ends with: each credential and Secret value
 * the world used is searched for in everything the test captured (the processes' output,
 * the GitHub emulator's state and recorded requests, every Redis key of the world and
 * every stored result file). A failure names the secret and the place, never the value.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { expect } from 'vitest';
import type { ServiceProcess, ServiceWorld } from './service.js';

export interface LeakScan {
  world: ServiceWorld;
  processes: readonly ServiceProcess[];
  /** Other secrets of the test by name: a Secret value in the repository, a signing key. */
  secrets?: Record<string, string>;
  /** Folders of stored results besides `<cacheDir>/results` (a worker's own cache). */
  resultDirs?: readonly string[];
}

/** A PEM body line is 64 characters; any 32 of them in a row would be a leak. */
const KEY_CHUNK = 32;

/** Fails the test with `secret in place` for each secret found anywhere captured. */
export async function expectNoSecretLeaks(scan: LeakScan): Promise<void> {
  const needles = secretsOf(scan);
  const haystacks = await capturedTexts(scan);
  const leaks: string[] = [];
  for (const [place, text] of haystacks) {
    for (const [name, value] of needles) {
      if (text.includes(value)) leaks.push(`${name} in ${place}`);
    }
  }
  // A scan of nothing passes anything: a token was issued and results were stored.
  expect(needles.some(([name]) => name.startsWith('installation token'))).toBe(true);
  const stored = scan.world.redis ? 'the Redis key' : 'the file';
  expect(haystacks.some(([place]) => place.startsWith(stored))).toBe(true);
  expect([...new Set(leaks)]).toEqual([]);
}

function secretsOf(scan: LeakScan): Array<[string, string]> {
  const { secrets } = scan.world;
  const needles: Array<[string, string]> = [
    ['the webhook secret', secrets.webhook],
    ['the API token', secrets.apiToken],
    ['a private key header', 'PRIVATE KEY-----'],
  ];
  const body = secrets.privateKey
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('-----'))
    .join('');
  for (let at = 0; at + KEY_CHUNK <= body.length; at += KEY_CHUNK) {
    needles.push([
      `the App private key (characters ${at}-${at + KEY_CHUNK})`,
      body.slice(at, at + KEY_CHUNK),
    ]);
  }
  scan.world.emulator.issuedTokens().forEach((token, i) => {
    needles.push([`installation token ${i + 1}`, token]);
    const basic = Buffer.from(`x-access-token:${token}`).toString('base64');
    needles.push([`installation token ${i + 1} as git's Basic header`, basic]);
  });
  for (const [name, value] of Object.entries(scan.secrets ?? {})) {
    needles.push([name, value], [`${name} in base64`, Buffer.from(value).toString('base64')]);
  }
  return needles;
}

async function capturedTexts(scan: LeakScan): Promise<Array<[string, string]>> {
  const texts: Array<[string, string]> = scan.processes.map((p, i) => [
    `the output of process ${i + 1}`,
    p.output(),
  ]);
  texts.push(['the GitHub emulator state', JSON.stringify(scan.world.emulator.state())]);
  if (scan.world.redis) {
    texts.push(...(await redisValues(scan.world.redis.url, scan.world.redisPrefix)));
  }
  for (const dir of [join(scan.world.cacheDir, 'results'), ...(scan.resultDirs ?? [])]) {
    for (const file of filesUnder(dir))
      texts.push([`the file ${file}`, readFileSync(file, 'utf8')]);
  }
  return texts;
}

/** Every key under the prefix with its value, whatever the key's type. */
async function redisValues(url: string, prefix: string): Promise<Array<[string, string]>> {
  const redis = new Redis(url, { lazyConnect: true });
  const texts: Array<[string, string]> = [];
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
      for (const key of keys) texts.push([`the Redis key ${key}`, await redisValue(redis, key)]);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return texts;
}

async function redisValue(redis: Redis, key: string): Promise<string> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.get(key)) ?? '';
    case 'hash':
      return JSON.stringify(await redis.hgetall(key));
    case 'list':
      return JSON.stringify(await redis.lrange(key, 0, -1));
    case 'set':
      return JSON.stringify(await redis.smembers(key));
    case 'zset':
      return JSON.stringify(await redis.zrange(key, 0, -1));
    case 'stream':
      return JSON.stringify(await redis.xrange(key, '-', '+'));
    default:
      return '';
  }
}

function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}
