/**
 * A tool's version, as it says it, kept in the render cache by the binary it is (path,
 * size, change time, inode): asking starts a process, which costs about as much as a
 * whole review of an unchanged cluster takes from the cache.
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { SetupError } from '../../../errors.js';
import { renderCacheKey, type RenderCache } from '../../cache/index.js';
import type { ToolName, ToolRunner } from '../../../tool-runner.js';
import type { RenderSettings } from '../../settings.js';

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

/** A tool's version as `toolVersion` gives it, with the runner and store already chosen. */
export type AskVersion = (tool: ToolName, args: string[]) => Promise<string>;

/**
 * kustomize-server's version when it is installed and may build (remote bases are the
 * binary's to fetch); undefined: every build runs kustomize.
 */
export function kustomizeServerVersion(
  ask: AskVersion,
  settings: RenderSettings,
): Promise<string | undefined> {
  if (settings.allowRemoteBases || !settings.kustomizeServer) return Promise.resolve(undefined);
  return ask('kustomize-server', ['--version']).catch((err: unknown) => {
    if (err instanceof SetupError) return undefined;
    throw err;
  });
}

/**
 * helm-server's version when it is installed and HelmReleases render; undefined: every
 * release runs helm.
 */
export function helmServerVersion(
  ask: AskVersion,
  settings: RenderSettings,
): Promise<string | undefined> {
  if (!settings.helm.enabled || !settings.helmServer) return Promise.resolve(undefined);
  return ask('helm-server', ['--version']).catch((err: unknown) => {
    if (err instanceof SetupError) return undefined;
    throw err;
  });
}

/** The resident helpers' versions, each when it renders (see above). */
export interface ServerVersions {
  kustomize: string | undefined;
  helm: string | undefined;
}

/**
 * The tools a builtin render builds with, as the rendered cluster names them: kustomize,
 * kustomize-server when it builds, helm when releases are inflated, and helm-server when
 * it renders them.
 */
export async function builtinTools(
  ask: AskVersion,
  settings: RenderSettings,
  servers: ServerVersions,
): Promise<Record<string, string>> {
  const kustomize = {
    kustomize: await ask('kustomize', ['version']),
    ...(servers.kustomize !== undefined ? { 'kustomize-server': servers.kustomize } : {}),
  };
  if (!settings.helm.enabled) return kustomize;
  return {
    ...kustomize,
    helm: await ask('helm', ['version', '--short']),
    ...(servers.helm !== undefined ? { 'helm-server': servers.helm } : {}),
  };
}
