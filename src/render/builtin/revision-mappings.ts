/**
 * A `--source` folder inside the reviewed repository stands for that folder at the
 * revision being rendered: a review renders its base and its head, and the work tree is
 * neither. A Flux Operator fleet whose sync source is an OCI artifact built from this
 * repository (`--source flux-system=.`) then reads each side's own files, as CI would
 * have pushed them. A render of the work tree itself (no revision) reads it as it is.
 */
import { realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { RenderRequest } from '../engine.js';
import type { SourceMapping } from '../source-mapping.js';

export async function revisionMappings(
  request: RenderRequest,
  revisionRoot: string,
): Promise<readonly SourceMapping[]> {
  const mappings = request.sources;
  if (request.rev === undefined || mappings.length === 0) return mappings;
  const top = await real(request.repoDir);
  return Promise.all(
    mappings.map(async (m) => {
      const inside = relative(top, await real(m.dir));
      if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside)) return m;
      return { ...m, dir: join(revisionRoot, inside) };
    }),
  );
}

async function real(dir: string): Promise<string> {
  const absolute = resolve(dir);
  return realpath(absolute).catch(() => absolute);
}
