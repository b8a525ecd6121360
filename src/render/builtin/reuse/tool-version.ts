/**
 * A tool's version, as it says it, kept in the render cache by the binary it is (path,
 * size, change time, inode): asking starts a process, which costs about as much as a
 * whole review of an unchanged cluster takes from the cache.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { renderCacheKey, type RenderCache } from '../../cache/index.js';
import type { ToolName, ToolRunner } from '../../../tool-runner.js';

export async function toolVersion(
  runner: ToolRunner,
  store: RenderCache | undefined,
  tool: ToolName,
  args: string[],
): Promise<string> {
  const key = store && (await binaryKey(runner, tool, args));
  const kept = key !== undefined ? await store?.getParsed(key, Kept, 'never') : undefined;
  if (kept !== undefined) return kept.version;
  const version = (await runner.run(tool, args)).stdout.trim();
  if (key !== undefined) await store?.put(key, JSON.stringify({ version }));
  return version;
}

/** A damaged entry is asked again: its text would become every key the tool is part of. */
const Kept = z.object({ version: z.string() });

async function binaryKey(
  runner: ToolRunner,
  tool: ToolName,
  args: string[],
): Promise<string | undefined> {
  const path = await runner.resolve(tool);
  const info = await stat(path).catch(() => undefined);
  if (!info) return undefined;
  return renderCacheKey(['tool-version/2', tool, args, path, info.size, info.ctimeMs, info.ino]);
}
